package dev.oncely.cli;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Records as the client writes them, for real store files. */
final class Records {
  static final Instant NOW = Instant.parse("2026-12-01T08:00:00Z");
  static final String BODY = "{\"amount\":1200,\"currency\":\"EUR\",\"card\":\"4242-secret\"}";

  private Records() {}

  static IntentRecord.Builder record(String key, IntentState state, Duration age) {
    Instant created = NOW.minus(age);
    return IntentRecord.builder()
        .id(IntentId.of("tenant-7", "create-payment", key))
        .businessId("order-" + key)
        .method("POST")
        .url("https://api.example.com/payments")
        .headers(Map.of("X-Trace-Note", List.of("trace-secret-value")))
        .body(BODY.getBytes(StandardCharsets.UTF_8), "application/json")
        .fingerprint("ab".repeat(32))
        .state(state)
        .attempts(state == IntentState.NEW ? 0 : 2)
        .createdAt(created)
        .updatedAt(created.plusSeconds(5))
        .expiresAt(created.plus(Duration.ofHours(24)));
  }

  static StoredResponse response(int status, String body) {
    return StoredResponse.of(status, Map.of("Content-Type", List.of("application/json")),
        body.getBytes(StandardCharsets.UTF_8));
  }
}
