package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.testing.Dice;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.KeyConcurrency;
import dev.oncely.testing.ReceivedRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/**
 * Many intents, each submitted twice at once, against the testing kit's idempotent server that
 * misbehaves: before handling it answers {@code 503}, {@code 409} and {@code 202}, and it cuts the
 * connection <em>after</em> committing the effect. Every intent must complete, each effect must
 * happen exactly once, one key is never on the wire twice at the same time, and every attempt
 * carries the same body bytes.
 */
class ExactlyOnceUnderFaultsTest {
  private static final int INTENTS = 30;
  private static final Dice DICE = Dice.seeded(30);
  /** Each key's requests walk this cycle from a start rolled for its body; null: no fault. */
  private static final List<Fault> CYCLE = Arrays.asList(Fault.answer(503), Fault.answer(409),
      Fault.answer(202), Fault.dropAfterCommit(), null);

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private static Fault cycle(ReceivedRequest request, int requestOfKey) {
    return requestOfKey == 0 ? null : CYCLE.get(
        Math.floorMod(DICE.roll(request.bodyText(), 0) + requestOfKey, CYCLE.size()));
  }

  @Test
  void every_intent_completes_with_exactly_one_effect_despite_faults() throws Exception {
    IdempotentServer kit = IdempotentServer.builder()
        .faults(FaultScript.builder().rule(ExactlyOnceUnderFaultsTest::cycle).build())
        .build();
    // Held requests keep a key in progress a while: a second request of it would be caught.
    KeyConcurrency wire = KeyConcurrency.over(kit).holdUpTo(Duration.ofMillis(10), 30).build();
    server.setDispatcher(wire);
    ManualClock clock = new ManualClock(Instant.parse("2026-11-30T09:00:00Z"));
    List<CompletableFuture<IntentOutcome>> futures = new ArrayList<>();
    List<IntentSpec> specs = new ArrayList<>();
    try (IdempotentClient client = IdempotentClient.builder()
        .clock(clock)
        .sleeper(new RecordingSleeper(clock))
        .retryBudget(RetryBudget.unlimited())
        .driverThreads(8)
        .retryPolicy(RetryPolicy.builder().maxAttempts(20).deadline(Duration.ofHours(1))
            .attemptTimeout(Duration.ofSeconds(5)).build())
        .build()) {
      for (int i = 0; i < INTENTS; i++) {
        IntentSpec spec = IntentSpec.builder().operation("create-order").scope("tenant-a")
            .post(server.url("/orders").toString())
            .jsonBody("{\"order\":" + i + "}").build();
        specs.add(spec);
        futures.add(client.submit(spec));
        futures.add(client.submit(spec));
      }
      for (CompletableFuture<IntentOutcome> f : futures) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isInstanceOf(IntentOutcome.Completed.class);
      }
    }

    assertThat(kit.injectedFaults()).extracting(f -> f.fault().toString())
        .as("the whole fault mix was injected")
        .contains("answer_before_handling(503)", "answer_before_handling(409)",
            "answer_before_handling(202)", "drop_after_commit");
    wire.assertNeverConcurrent();
    assertThat(wire.maxInProgressOfOneKey()).isEqualTo(1);
    kit.ledger().assertExactlyOneEffectEach(specs.stream().map(IntentSpec::key).toList());
    assertThat(kit.ledger().size()).isEqualTo(INTENTS);
    int attempts = 0;
    for (IntentSpec spec : specs) {
      List<ReceivedRequest> sent = kit.requests()
          .withHeaderValue(IdempotentServer.DEFAULT_KEY_HEADER, "\"" + spec.key() + "\"");
      assertThat(sent).as("attempts of %s", spec.key()).isNotEmpty()
          .allSatisfy(r -> assertThat(r.body()).isEqualTo(spec.body()));
      attempts += sent.size();
    }
    assertThat(attempts).as("every request carried one of the intents' keys")
        .isEqualTo(kit.requestCount());
  }
}
