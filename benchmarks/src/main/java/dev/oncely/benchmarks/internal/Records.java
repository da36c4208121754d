package dev.oncely.benchmarks.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.internal.Keys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Records shaped like the ones the engine writes for a payment intent. */
public final class Records {
  private static final String FINGERPRINT =
      "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b";
  private static final Duration RETENTION = Duration.ofHours(24);

  private Records() {}

  /** A {@code NEW} record for payment {@code seq} with a fresh random key. */
  public static IntentRecord fresh(long seq) {
    return fresh(seq, Payloads.payment(seq));
  }

  /** A {@code NEW} record sending {@code body} with a fresh random key. */
  public static IntentRecord fresh(long seq, String body) {
    Instant now = Instant.now();
    return IntentRecord.builder()
        .id(IntentId.of("bench", "create-payment", Keys.random()))
        .method("POST")
        .url("http://127.0.0.1:8080/payments")
        .headers(Map.of())
        .body(body.getBytes(StandardCharsets.UTF_8), "application/json")
        .fingerprint(FINGERPRINT)
        .state(IntentState.NEW)
        .createdAt(now)
        .updatedAt(now)
        .expiresAt(now.plus(RETENTION))
        .build();
  }

  /**
   * A {@code COMPLETED} record for payment {@code seq} holding a typical {@code 201} answer, its
   * request dropped as the engine drops it.
   */
  public static IntentRecord completed(long seq) {
    return completed(fresh(seq), seq);
  }

  /**
   * {@code r}, the {@code NEW} record of payment {@code seq}, completed with a {@code 201} as the
   * engine settles it by default: the request dropped (body and headers gone, their digest kept).
   */
  public static IntentRecord completed(IntentRecord r, long seq) {
    String body = "{\"id\":\"pay_" + seq + "\",\"amount\":1000,\"currency\":\"JPY\",\"customer\":\"c-"
        + (seq % 97) + "\",\"order\":\"o-" + seq + "\",\"status\":\"created\"}";
    StoredResponse response = StoredResponse.of(201,
        Map.of("Content-Type", List.of("application/json"),
            "Location", List.of("/payments/pay_" + seq)),
        body.getBytes(StandardCharsets.UTF_8));
    return r.successor().state(IntentState.COMPLETED).attempts(1).lastResponse(response)
        .dropRequest().build();
  }
}
