package dev.oncely.android;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.spi.StoreEncryption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The records of the store files {@code schema-3-plain.db} and {@code schema-3-sealed.db} (test
 * resources): files that {@link AndroidSqliteIntentStore} wrote with its own layout version 3
 * (table {@code records}, {@code PRAGMA user_version = 3}), before it adopted the shared schema,
 * each record created and then moved through its states with {@code compareAndSet} ({@link
 * #histories}), so every file holds one record per state, with and without business ids, response
 * bodies and retry policies, at several revisions. The sealed file was written with {@link
 * #encryption}. The files were written once by a Robolectric test of that version,
 * {@code SchemaThreeFixtureGenerator}, which the history keeps beside them; each history is
 * deterministic, so a test rebuilds the exact records the files hold.
 */
final class SchemaThreeFixture {
  /** The plain file, as a classpath resource. */
  static final String PLAIN = "schema-3-plain.db";
  /** The file written with {@link #ENCRYPTION}, as a classpath resource. */
  static final String SEALED = "schema-3-sealed.db";

  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");
  private static final byte[] KEY = "oncely-schema-3-fixture-key-32b!".getBytes(
      StandardCharsets.US_ASCII);

  private SchemaThreeFixture() {}

  /** The encryption the sealed file was written with (a fixed test key, never a real one). */
  static StoreEncryption encryption() {
    return StoreEncryption.aes256Gcm(KEY);
  }

  /** Every record the files hold, as their last write left it. */
  static List<IntentRecord> records() {
    List<IntentRecord> last = new ArrayList<>();
    for (List<IntentRecord> history : histories()) {
      last.add(history.get(history.size() - 1));
    }
    return last;
  }

  /** Each record's versions in write order: the created one (revision 0), then each replacement. */
  static List<List<IntentRecord>> histories() {
    List<List<IntentRecord>> all = new ArrayList<>();
    all.add(List.of(fresh("k-new", null)));

    IntentRecord inFlight = fresh("k-in-flight", "order-in-flight");
    all.add(List.of(inFlight, inFlight.successor().state(IntentState.IN_FLIGHT).attempts(1)
        .maybeDelivered(true).keyWireForm("Idempotency-Key", "\"k-in-flight\"")
        .updatedAt(T0.plusSeconds(1)).build()));

    IntentRecord pending = fresh("k-pending", "order-pending");
    IntentRecord pendingFlight = pending.successor().state(IntentState.IN_FLIGHT).attempts(1)
        .updatedAt(T0.plusSeconds(1)).build();
    all.add(List.of(pending, pendingFlight, pendingFlight.successor()
        .state(IntentState.PENDING).nextAttemptAt(T0.plusSeconds(30))
        .pollUrl("https://api.example.test/payments/p-1")
        .lastResponse(StoredResponse.of(202, Map.of("Location", List.of("/payments/p-1")),
            utf8("{\"status\":\"processing\"}")))
        .reason("202 Accepted: still processing").updatedAt(T0.plusSeconds(2)).build()));

    IntentRecord due = fresh("k-pending-due-now", "order-pending-due-now");
    all.add(List.of(due, due.successor().state(IntentState.PENDING).attempts(2)
        .reason("connection reset").updatedAt(T0.plusSeconds(3)).build()));

    IntentRecord completed = full("k-completed", "order-completed");
    IntentRecord completedFlight = completed.successor().state(IntentState.IN_FLIGHT)
        .attempts(1).maybeDelivered(true).updatedAt(T0.plusSeconds(1)).build();
    all.add(List.of(completed, completedFlight, completedFlight.successor()
        .state(IntentState.COMPLETED)
        .lastResponse(StoredResponse.of(201,
            Map.of("Content-Type", List.of("application/json"), "Location",
                List.of("/payments/p-9")),
            utf8("{\"id\":\"p-9\",\"status\":\"captured\",\"amount\":1000}")))
        .replayed(true).updatedAt(T0.plusSeconds(4)).expiresAt(T0.plus(Duration.ofDays(7)))
        .build()));

    IntentRecord reconcile = full("k-reconcile", "order-reconcile");
    all.add(List.of(reconcile, reconcile.successor().state(IntentState.NEEDS_RECONCILIATION)
        .attempts(6).maybeDelivered(true)
        .reason("retry budget spent after a timeout; the effect may have happened")
        .updatedAt(T0.plusSeconds(90)).build()));

    IntentRecord rejected = fresh("k-rejected", null);
    all.add(List.of(rejected, rejected.successor().state(IntentState.REJECTED).attempts(1)
        .lastResponse(StoredResponse.of(422, Map.of(), utf8("{\"error\":\"card declined\"}")))
        .reason("422 Unprocessable Content").updatedAt(T0.plusSeconds(5)).build()));

    IntentRecord conflict = fresh("k-conflict", "order-conflict");
    all.add(List.of(conflict, conflict.successor().state(IntentState.KEY_CONFLICT).attempts(1)
        .reason("409: the key is bound to another payload").updatedAt(T0.plusSeconds(6))
        .build()));

    IntentRecord expired = fresh("k-expired", "order-expired");
    all.add(List.of(expired, expired.successor().state(IntentState.COMPLETED).attempts(1)
        .lastResponse(StoredResponse.of(200, Map.of(), new byte[0]))
        .expiresAt(T0.plusSeconds(60)).updatedAt(T0.plusSeconds(7)).build()));

    IntentRecord elsewhere = IntentRecord.builder()
        .id(IntentId.of("tenant-\u00fc", "refund", "k-elsewhere~!#"))
        .businessId("refund-77")
        .method("PUT")
        .url("https://api.example.test/refunds/77")
        .fingerprint("ef".repeat(32))
        .state(IntentState.NEW)
        .createdAt(T0.plusMillis(250))
        .updatedAt(T0.plusMillis(250))
        .expiresAt(T0.plus(Duration.ofDays(2)))
        .retryPolicy(RetryPolicy.builder().maxAttempts(3).baseDelay(Duration.ofMillis(100))
            .build())
        .build();
    all.add(List.of(elsewhere, elsewhere.successor().state(IntentState.PENDING).attempts(1)
        .nextAttemptAt(T0.plusSeconds(600)).updatedAt(T0.plusSeconds(8)).build()));
    return all;
  }

  private static IntentRecord fresh(String key, String businessId) {
    IntentRecord.Builder b = IntentRecord.builder()
        .id(IntentId.of("shop", "create-payment", key))
        .method("POST")
        .url("https://api.example.test/payments")
        .body(utf8("{\"amount\":1000,\"currency\":\"JPY\"}"), "application/json")
        .fingerprint("cd".repeat(32))
        .state(IntentState.NEW)
        .createdAt(T0)
        .updatedAt(T0)
        .expiresAt(T0.plus(Duration.ofDays(1)));
    if (businessId != null) {
      b.businessId(businessId);
    }
    return b.build();
  }

  private static IntentRecord full(String key, String businessId) {
    return IntentRecord.builder()
        .id(IntentId.of("shop", "create-payment", key))
        .businessId(businessId)
        .method("POST")
        .url("https://api.example.test/payments?x=1")
        .headers(Map.of("X-Trace", List.of("t1", "t2"), "Content-Language", List.of("ja")))
        .body(utf8("{\"amount\":1000,\"currency\":\"JPY\"}"), "application/json; charset=utf-8")
        .fingerprint("ab".repeat(32))
        .state(IntentState.NEW)
        .createdAt(T0.plusMillis(10))
        .updatedAt(T0.plusMillis(10))
        .expiresAt(T0.plus(Duration.ofDays(1)))
        .keyWireForm("Idempotency-Key", "\"" + key + "\"")
        .traceContext(Map.of("traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        .addNote(new IntentRecord.Note(T0.plusSeconds(60), "ops@example.test",
            "checked with the provider"))
        .build();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
