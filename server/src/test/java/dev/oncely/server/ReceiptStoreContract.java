package dev.oncely.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.server.internal.StatusTokens;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.jspecify.annotations.Nullable;

/**
 * What {@link ReceiptStore} promises on every {@link IntentStore} engine it runs on: the
 * reservation is one insert on the unique constraint (one winner among racing threads), every later
 * change is a compare-and-set on the revision (a stale owner is fenced out), every receipt field
 * survives the engine's format, status tokens are found only in their own scope and operation,
 * unfinished receipts are listed and never purged, and with {@link StoreEncryption} the key and the
 * stored answer are not in clear anywhere the engine keeps bytes. Each engine's test class extends
 * this and says how to open its store; durable engines also reopen it, so round trips go through
 * their files or tables, not through memory.
 */
abstract class ReceiptStoreContract {
  static final Instant T0 = Instant.parse("2026-12-01T09:00:00.123456789Z");
  static final String FINGERPRINT = "v2:" + "ab".repeat(32);
  private static final SecureRandom RANDOM = new SecureRandom();
  static final String OTHER_FINGERPRINT = "v2:" + "cd".repeat(32);

  ReceiptStore receipts;
  private final List<IntentStore> opened = new ArrayList<>();

  /**
   * Opens a fresh, empty store of this engine: plain when {@code encryption} is null, else sealing
   * with it. Every store a test opens is closed after it.
   */
  abstract IntentStore openStore(@Nullable StoreEncryption encryption) throws Exception;

  /** Closes {@code store} and opens the same storage again (in memory: the same instance). */
  IntentStore reopen(IntentStore store) throws Exception {
    return store;
  }

  /** Whether the engine keeps bytes at rest (files, tables); the in-memory store does not. */
  boolean keepsBytesAtRest() {
    return true;
  }

  /**
   * Every byte the engine keeps at rest for the stores this test opened (files, table rows, the
   * database's pages and log), read while they are open.
   */
  byte[] bytesAtRest() throws Exception {
    throw new UnsupportedOperationException("this engine keeps nothing at rest");
  }

  @BeforeEach
  void openReceipts() throws Exception {
    receipts = ReceiptStore.on(open(null));
  }

  @AfterEach
  void closeStores() {
    receipts.close();
    for (IntentStore s : opened) {
      s.close();
    }
    afterStoresClosed();
  }

  /** Releases what the engine's stores ran on (a database pool), once every store is closed. */
  void afterStoresClosed() {}

  IntentStore open(@Nullable StoreEncryption encryption) throws Exception {
    IntentStore s = openStore(encryption);
    opened.add(s);
    return s;
  }

  private void reopenReceipts() throws Exception {
    IntentStore again = reopen(receipts.intentStore());
    opened.add(again);
    receipts = ReceiptStore.on(again);
  }

  static IntentId id(String key) {
    return IntentId.of("tenant-a", "payments.create", key);
  }

  /** A receipt as the core reserves it: processing under a 30 s lease. */
  static Receipt processing(IntentId id) {
    return Receipt.builder().id(id).fingerprint(FINGERPRINT).state(ReceiptState.PROCESSING)
        .revision(0).lease(T0.plusSeconds(30), "instance-1").runs(1)
        .statusToken(StatusTokens.tokenOf(id)).createdAt(T0).updatedAt(T0)
        .expiresAt(T0.plus(Duration.ofHours(24))).build();
  }

  static Receipt next(Receipt r) {
    return r.toBuilder().revision(r.revision() + 1).updatedAt(r.updatedAt().plusMillis(1)).build();
  }

  static Receipt completed(Receipt r, StoredResponse answer, Instant expiresAt) {
    return next(r).toBuilder().state(ReceiptState.COMPLETED).lease(null, r.leaseOwner())
        .answer(answer).expiresAt(expiresAt).build();
  }

  static Receipt released(Receipt r, Instant expiresAt) {
    return next(r).toBuilder().state(ReceiptState.RELEASED).lease(null, r.leaseOwner())
        .reason("the handler failed").expiresAt(expiresAt).build();
  }

  static Receipt pending(Receipt r, Instant expiresAt) {
    return next(r).toBuilder().state(ReceiptState.PENDING).lease(null, r.leaseOwner())
        .reference("order-7").reason("the provider's answer is unknown").expiresAt(expiresAt)
        .build();
  }

  static StoredResponse answer(String body) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("application/json"));
    headers.put("Location", List.of("/payments/p-1"));
    headers.put("Link", List.of("</a>; rel=a", "</b>; rel=b"));
    return StoredResponse.of(201, headers, body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void reserve_inserts_once_and_a_second_reserve_gets_the_holder() throws Exception {
    Receipt first = processing(id("k1"));
    Receipt second = processing(id("k1")).toBuilder().fingerprint(OTHER_FINGERPRINT)
        .lease(T0.plusSeconds(99), "instance-2").build();

    ReceiptStore.Reservation won = receipts.reserve(first);
    ReceiptStore.Reservation lost = receipts.reserve(second);

    assertThat(won.reserved()).isTrue();
    assertThat(won.receipt()).isEqualTo(first);
    assertThat(lost.reserved()).isFalse();
    assertThat(lost.receipt()).isEqualTo(first);
    reopenReceipts();
    assertThat(receipts.get(id("k1"))).contains(first);
  }

  @Test
  void reserve_refuses_a_candidate_with_a_revision() {
    Receipt candidate = processing(id("k1")).toBuilder().revision(1).build();

    assertThatThrownBy(() -> receipts.reserve(candidate))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(receipts.get(id("k1"))).isEmpty();
  }

  @Test
  void threads_reserving_one_key_at_once_have_exactly_one_winner() throws Exception {
    int threads = 8;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<ReceiptStore.Reservation>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        Receipt candidate = processing(id("race")).toBuilder()
            .lease(T0.plusSeconds(30), "instance-" + i).build();
        results.add(pool.submit(() -> {
          start.await(10, TimeUnit.SECONDS);
          return receipts.reserve(candidate);
        }));
      }
      List<ReceiptStore.Reservation> all = new ArrayList<>();
      for (Future<ReceiptStore.Reservation> f : results) {
        all.add(f.get(30, TimeUnit.SECONDS));
      }

      List<ReceiptStore.Reservation> winners = all.stream()
          .filter(ReceiptStore.Reservation::reserved).toList();
      assertThat(winners).hasSize(1);
      Receipt holder = winners.get(0).receipt();
      assertThat(all).allSatisfy(r -> assertThat(r.receipt()).isEqualTo(holder));
      assertThat(receipts.get(id("race"))).contains(holder);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void replace_is_a_compare_and_set_on_the_revision_and_a_stale_owner_loses() throws Exception {
    Receipt owned = processing(id("k1"));
    receipts.reserve(owned);
    Receipt takenOver = next(owned).toBuilder().lease(T0.plusSeconds(90), "instance-2").runs(2)
        .build();
    Receipt staleFinish = completed(owned, answer("{\"stale\":true}"), T0.plusSeconds(600));

    assertThat(receipts.replace(owned, takenOver)).isTrue();
    assertThat(receipts.replace(owned, staleFinish)).isFalse();

    reopenReceipts();
    assertThat(receipts.get(id("k1"))).contains(takenOver);
  }

  @Test
  void replace_of_a_receipt_never_stored_changes_nothing() {
    Receipt ghost = processing(id("ghost"));

    assertThat(receipts.replace(ghost, next(ghost))).isFalse();
    assertThat(receipts.get(id("ghost"))).isEmpty();
  }

  @Test
  void replace_refuses_a_skipped_revision_or_another_identity() {
    Receipt owned = processing(id("k1"));
    receipts.reserve(owned);
    Receipt skipping = owned.toBuilder().revision(2).build();
    Receipt otherKey = processing(id("k2")).toBuilder().revision(1).build();

    assertThatThrownBy(() -> receipts.replace(owned, skipping))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> receipts.replace(owned, otherKey))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(receipts.get(id("k1"))).contains(owned);
  }

  @Test
  void every_receipt_field_survives_the_store() throws Exception {
    Instant lease = T0.plusSeconds(30).plusNanos(987_654_321);
    Receipt reserved = processing(id("k1")).toBuilder().lease(lease, "instance-1/host:42").build();
    receipts.reserve(reserved);
    Receipt committed = next(reserved).toBuilder().effectsCommitted(true).reference("order-77")
        .reason("taken over after the owner's lease ran out").runs(3).build();
    assertThat(receipts.replace(reserved, committed)).isTrue();
    reopenReceipts();
    Receipt readCommitted = receipts.get(id("k1")).orElseThrow();
    assertThat(readCommitted).isEqualTo(committed);
    assertThat(readCommitted.leaseUntil()).isEqualTo(lease);
    assertThat(readCommitted.leaseOwner()).isEqualTo("instance-1/host:42");
    assertThat(readCommitted.effectsCommitted()).isTrue();
    assertThat(readCommitted.reference()).isEqualTo("order-77");
    assertThat(readCommitted.reason()).isEqualTo("taken over after the owner's lease ran out");
    assertThat(readCommitted.runs()).isEqualTo(3);

    byte[] body = {0, 1, (byte) 0xff, (byte) 0xfe, '{', '}', (byte) 0x80};
    Map<String, List<String>> headers = new LinkedHashMap<>();
    headers.put("Content-Type", List.of("application/octet-stream"));
    headers.put("Link", List.of("</a>; rel=a", "</b>; rel=b"));
    headers.put("ETag", List.of("\"v1\""));
    StoredResponse stored = StoredResponse.of(201, headers, body);
    Receipt done = completed(readCommitted, stored, T0.plus(Duration.ofHours(24)).plusNanos(7));
    assertThat(receipts.replace(readCommitted, done)).isTrue();
    reopenReceipts();

    Receipt read = receipts.get(id("k1")).orElseThrow();
    assertThat(read).isEqualTo(done);
    assertThat(read.state()).isEqualTo(ReceiptState.COMPLETED);
    assertThat(read.answer().status()).isEqualTo(201);
    assertThat(read.answer().body()).isEqualTo(body);
    assertThat(read.answer().headers()).isEqualTo(headers);
    assertThat(read.leaseUntil()).isNull();
    assertThat(read.leaseOwner()).isEqualTo("instance-1/host:42");
    assertThat(read.statusToken()).isEqualTo(StatusTokens.tokenOf(id("k1")));
    assertThat(read.fingerprint()).isEqualTo(FINGERPRINT);
    assertThat(read.revision()).isEqualTo(2);
    assertThat(read.createdAt()).isEqualTo(T0);
    assertThat(read.updatedAt()).isEqualTo(done.updatedAt());
    assertThat(read.expiresAt()).isEqualTo(done.expiresAt());
  }

  @Test
  void a_pending_receipt_keeps_its_reference_and_reason() throws Exception {
    Receipt owned = processing(id("k1"));
    receipts.reserve(owned);
    Receipt waiting = pending(owned, owned.expiresAt());
    assertThat(receipts.replace(owned, waiting)).isTrue();
    reopenReceipts();

    Receipt read = receipts.get(id("k1")).orElseThrow();
    assertThat(read).isEqualTo(waiting);
    assertThat(read.reference()).isEqualTo("order-7");
    assertThat(read.reason()).isEqualTo("the provider's answer is unknown");
    assertThat(read.leaseUntil()).isNull();
  }

  @Test
  void the_status_token_is_found_only_in_its_own_scope_and_operation() throws Exception {
    Receipt r = processing(id("k1"));
    receipts.reserve(r);
    String token = r.statusToken();
    reopenReceipts();

    assertThat(receipts.findByStatusToken("tenant-a", "payments.create", token)).contains(r);
    assertThat(receipts.findByStatusToken("tenant-b", "payments.create", token)).isEmpty();
    assertThat(receipts.findByStatusToken("tenant-a", "refunds.create", token)).isEmpty();
    assertThat(receipts.findByStatusToken("tenant-a", "payments.create",
        StatusTokens.tokenOf(id("k2")))).isEmpty();
  }

  @Test
  void the_same_key_in_two_scopes_is_two_receipts() {
    Receipt a = processing(IntentId.of("tenant-a", "payments.create", "shared"));
    Receipt b = processing(IntentId.of("tenant-b", "payments.create", "shared"));

    assertThat(receipts.reserve(a).reserved()).isTrue();
    assertThat(receipts.reserve(b).reserved()).isTrue();
    assertThat(receipts.findByStatusToken("tenant-b", "payments.create", b.statusToken()))
        .contains(b);
  }

  @Test
  void unfinished_lists_processing_and_pending_receipts_only() throws Exception {
    Receipt running = processing(id("running"));
    Receipt waiting = processing(id("waiting"));
    Receipt done = processing(id("done"));
    Receipt failed = processing(id("failed"));
    for (Receipt r : List.of(running, waiting, done, failed)) {
      receipts.reserve(r);
    }
    receipts.replace(waiting, pending(waiting, waiting.expiresAt()));
    receipts.replace(done, completed(done, answer("{}"), done.expiresAt()));
    receipts.replace(failed, released(failed, failed.expiresAt()));
    reopenReceipts();

    assertThat(receipts.listUnfinished()).extracting(r -> r.id().key())
        .containsExactlyInAnyOrder("running", "waiting");
  }

  @Test
  void purge_removes_finished_receipts_past_retention_and_never_unfinished_ones()
      throws Exception {
    Instant past = T0.plusSeconds(60);
    Instant later = T0.plus(Duration.ofDays(2));
    Receipt running = processing(id("running")).toBuilder().expiresAt(past).build();
    Receipt waiting = processing(id("waiting")).toBuilder().expiresAt(past).build();
    Receipt done = processing(id("done"));
    Receipt failed = processing(id("failed"));
    Receipt kept = processing(id("kept"));
    for (Receipt r : List.of(running, waiting, done, failed, kept)) {
      receipts.reserve(r);
    }
    receipts.replace(waiting, pending(waiting, past));
    receipts.replace(done, completed(done, answer("{}"), past));
    receipts.replace(failed, released(failed, past));
    receipts.replace(kept, completed(kept, answer("{}"), later));

    int purged = receipts.purgeExpired(T0.plus(Duration.ofDays(1)));
    reopenReceipts();

    assertThat(purged).isEqualTo(2);
    assertThat(receipts.get(id("done"))).isEmpty();
    assertThat(receipts.get(id("failed"))).isEmpty();
    assertThat(receipts.get(id("kept"))).isPresent();
    assertThat(receipts.get(id("running"))).isPresent();
    assertThat(receipts.get(id("waiting"))).isPresent();
    assertThat(receipts.listUnfinished()).extracting(r -> r.id().key())
        .containsExactlyInAnyOrder("running", "waiting");
  }

  @Test
  void a_purged_key_can_be_reserved_again() {
    Receipt first = processing(id("k1"));
    receipts.reserve(first);
    receipts.replace(first, released(first, T0.plusSeconds(60)));
    receipts.purgeExpired(T0.plusSeconds(61));

    ReceiptStore.Reservation again = receipts.reserve(processing(id("k1")));

    assertThat(again.reserved()).isTrue();
  }

  @Test
  void a_clients_intent_in_the_store_is_refused_as_corrupted_never_read_as_a_receipt() {
    IntentStore shared = receipts.intentStore();
    IntentId id = id("client-intent");
    shared.create(IntentRecord.builder().id(id).businessId(StatusTokens.tokenOf(id))
        .method("POST").url("https://api.example.test/payments")
        .body("{\"amount\":1}".getBytes(StandardCharsets.UTF_8), "application/json")
        .fingerprint(FINGERPRINT).state(IntentState.IN_FLIGHT).createdAt(T0).updatedAt(T0)
        .expiresAt(T0.plus(Duration.ofDays(1))).build());

    assertThatThrownBy(() -> receipts.get(id)).isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining(id.safeKey()).hasMessageNotContaining("client-intent");
    assertThatThrownBy(() -> receipts.reserve(processing(id)))
        .isInstanceOf(StoreCorruptedException.class);
    assertThatThrownBy(() -> receipts.findByStatusToken("tenant-a", "payments.create",
        StatusTokens.tokenOf(id))).isInstanceOf(StoreCorruptedException.class);
  }

  @Test
  void with_encryption_the_key_and_the_stored_answer_are_not_in_clear_at_rest()
      throws Exception {
    assumeTrue(keepsBytesAtRest(), "this engine keeps nothing at rest");
    Marks marks = Marks.fresh();
    ReceiptStore sealed = ReceiptStore.on(open(
        StoreEncryption.aes256Gcm(random(StoreEncryption.KEY_BYTES))));
    storeMarked(sealed, marks);

    byte[] atRest = bytesAtRest();

    assertThat(indexOf(atRest, marks.key())).as("the key in clear").isEqualTo(-1);
    assertThat(indexOf(atRest, marks.body())).as("the answer body in clear").isEqualTo(-1);
    assertThat(indexOf(atRest, marks.reference())).as("the reference in clear").isEqualTo(-1);
    assertThat(sealed.get(marks.id()).orElseThrow().answer().body())
        .isEqualTo(marks.body().getBytes(StandardCharsets.UTF_8));
  }

  /** The scan above is not blind: without encryption the same marks are found. */
  @Test
  void without_encryption_the_scan_finds_the_answer_so_the_sealed_scan_is_not_blind()
      throws Exception {
    assumeTrue(keepsBytesAtRest(), "this engine keeps nothing at rest");
    Marks marks = Marks.fresh();
    storeMarked(receipts, marks);

    byte[] atRest = bytesAtRest();

    assertThat(indexOf(atRest, marks.body())).as("the answer body in clear").isNotEqualTo(-1);
    assertThat(indexOf(atRest, marks.key())).as("the key in clear").isNotEqualTo(-1);
  }

  private static void storeMarked(ReceiptStore store, Marks marks) {
    Receipt r = processing(marks.id());
    store.reserve(r);
    Receipt committed = next(r).toBuilder().effectsCommitted(true).reference(marks.reference())
        .build();
    store.replace(r, committed);
    store.replace(committed, completed(committed, answer(marks.body()), r.expiresAt()));
  }

  /** Distinct random strings that can only be in the store if it wrote them in clear. */
  record Marks(String key, String body, String reference) {
    static Marks fresh() {
      HexFormat hex = HexFormat.of();
      return new Marks("key-" + hex.formatHex(random(12)),
          "{\"secret\":\"" + hex.formatHex(random(12)) + "\"}",
          "ref-" + hex.formatHex(random(12)));
    }

    IntentId id() {
      return ReceiptStoreContract.id(key);
    }
  }

  static byte[] random(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  static int indexOf(byte[] haystack, String needle) {
    byte[] n = needle.getBytes(StandardCharsets.UTF_8);
    outer:
    for (int i = 0; i <= haystack.length - n.length; i++) {
      for (int j = 0; j < n.length; j++) {
        if (haystack[i + j] != n[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
