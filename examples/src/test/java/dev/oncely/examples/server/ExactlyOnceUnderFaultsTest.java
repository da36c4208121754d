package dev.oncely.examples.server;

import static dev.oncely.examples.server.Http.payment;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The server's half of exactly-once: a client that resends with the same key through every fault
 * gets one payment per intent, while a keyless client gets one duplicate per dropped answer.
 */
class ExactlyOnceUnderFaultsTest {
  private static final int MAX_ATTEMPTS = 200;

  @Test
  void keyed_retries_through_every_fault_create_each_payment_exactly_once() throws Exception {
    int intents = 200;
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(FaultPlan.parse(
            "drop=0.2,stall=0.02,stallfor=600s,refuse=0.1,burst503=0.05,burstlen=2,seed=11"))
        .slowShare(0.1)
        .slowFor(FaultPlan.MAX_DURATION)
        .retryAfterSeconds(0)
        .build()
        .start()) {
      Http http = new Http(server, Duration.ofMillis(500));
      ExecutorService pool = Executors.newFixedThreadPool(16);
      try {
        List<Future<Http.Answer>> finals = new ArrayList<>();
        for (int i = 0; i < intents; i++) {
          int intent = i;
          finals.add(pool.submit(() -> untilFinal(http, "\"key-" + intent + "\"", intent)));
        }
        for (Future<Http.Answer> f : finals) {
          Http.Answer a = f.get();
          assertThat(a.status() == 201 || a.location() != null)
              .as("created, or accepted as slow with a Location to poll").isTrue();
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(server.finishSlowOperationsNow()).isEqualTo(server.stats().status202());
      ServerStats stats = server.stats();
      assertThat(stats.effects()).isEqualTo(intents);
      assertThat(stats.duplicates()).isZero();
      assertThat(stats.effectsPerOrder()).hasSize(intents).allSatisfy((o, n) -> assertThat(n).isOne());
      assertThat(stats.faults(FaultKind.DROP)).isPositive();
      assertThat(stats.faults(FaultKind.REFUSE)).isPositive();
      assertThat(stats.faults(FaultKind.BURST_503)).isPositive();
    }
  }

  @Test
  void keyless_retries_create_one_duplicate_per_dropped_answer() throws Exception {
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(FaultPlan.parse("drop=0.2,refuse=0.1,seed=5"))
        .acceptKeyless(true)
        .build()
        .start()) {
      Http http = new Http(server);
      for (int i = 0; i < 100; i++) {
        assertThat(untilFinal(http, null, i).status()).isEqualTo(201);
      }
      ServerStats stats = server.stats();
      assertThat(stats.faults(FaultKind.DROP)).isPositive();
      assertThat(stats.duplicates()).isEqualTo(stats.faults(FaultKind.DROP));
      assertThat(stats.effects()).isEqualTo(100 + stats.faults(FaultKind.DROP));
    }
  }

  /**
   * Resends the intent (same key, same body) until an answer that is not transient. A 409 with a
   * Location means the intent was accepted as slow and would be polled, so it counts as final.
   */
  private static Http.Answer untilFinal(Http http, String key, int intent) {
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      try {
        Http.Answer a = http.post(key, payment(intent));
        boolean busy = a.status() == 409 && a.location() == null;
        if (!busy && a.status() != 503) {
          return a;
        }
      } catch (IOException transientFailure) {
        // outcome unknown: resend with the same key
      }
    }
    throw new AssertionError("intent " + intent + " had no final answer in " + MAX_ATTEMPTS);
  }
}
