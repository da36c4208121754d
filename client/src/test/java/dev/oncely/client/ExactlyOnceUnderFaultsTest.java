package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/**
 * Many intents, each submitted twice at once, against a server that keeps its own idempotency
 * records and misbehaves: it answers {@code 503}, {@code 409} and {@code 202}, and cuts the
 * connection <em>after</em> producing the effect. Every intent must complete, each effect must
 * happen exactly once, and one key is never on the wire twice at the same time.
 */
class ExactlyOnceUnderFaultsTest {
  private static final int INTENTS = 30;

  @StartStop
  private final MockWebServer server = new MockWebServer();

  @Test
  void every_intent_completes_with_exactly_one_effect_despite_faults() throws Exception {
    ServerWithIdempotency dispatcher = new ServerWithIdempotency();
    server.setDispatcher(dispatcher);
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

    assertThat(dispatcher.overlap.get()).as("same key on the wire twice at once").isZero();
    assertThat(dispatcher.effects).hasSize(INTENTS);
    assertThat(dispatcher.effects.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    for (IntentSpec spec : specs) {
      assertThat(dispatcher.bodies.get("\"" + spec.key() + "\"")).containsExactly(
          new String(spec.body(), java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  /** A server that dedupes by key, like the ones the SDK talks to, with scripted misbehaviour. */
  private static final class ServerWithIdempotency extends Dispatcher {
    final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    final Map<String, Set<String>> bodies = new ConcurrentHashMap<>();
    final AtomicInteger overlap = new AtomicInteger();
    private final Set<String> onWire = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String key = request.getHeaders().get("Idempotency-Key");
      if (!onWire.add(key)) {
        overlap.incrementAndGet();
      }
      try {
        bodies.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet())
            .add(request.getBody().utf8());
        int n = seen.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        switch (Math.floorMod(key.hashCode() + n, 5)) {
          case 0:
            return new MockResponse.Builder().code(503).build();
          case 1:
            return new MockResponse.Builder().code(409).build();
          case 2:
            return new MockResponse.Builder().code(202).build();
          case 3:
            effects.computeIfAbsent(key, k -> new AtomicInteger()).compareAndSet(0, 1);
            return new MockResponse.Builder().code(201)
                .onResponseStart(new SocketEffect.CloseSocket(true, true, true)).build();
          default:
            effects.computeIfAbsent(key, k -> new AtomicInteger()).compareAndSet(0, 1);
            return new MockResponse.Builder().code(201).body("{\"order\":\"created\"}").build();
        }
      } finally {
        onWire.remove(key);
      }
    }
  }
}
