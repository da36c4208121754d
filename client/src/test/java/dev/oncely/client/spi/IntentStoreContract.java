package dev.oncely.client.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.oncely.client.DueTime;
import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.UnfinishedEntry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link IntentStore} must show. Each engine's test class extends this and
 * supplies {@link #openStore()}; durable engines also override {@link #reopen(IntentStore)} so the
 * round trips below go through the file, not through memory.
 */
public abstract class IntentStoreContract {
  protected static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

  protected IntentStore store;

  /** Opens a fresh, empty store. Called before each test. */
  protected abstract IntentStore openStore() throws Exception;

  /**
   * Closes {@code store} and opens the same storage again; the default returns the same instance
   * (in-memory stores have nothing to reopen).
   */
  protected IntentStore reopen(IntentStore store) throws Exception {
    return store;
  }

  @BeforeEach
  void openFreshStore() throws Exception {
    store = openStore();
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
    }
  }

  /** A complete record with every optional field set, so a round trip checks all of them. */
  public static IntentRecord fullRecord(String scope, String operation, String key) {
    return IntentRecord.builder()
        .id(IntentId.of(scope, operation, key))
        .businessId("order-" + key)
        .method("POST")
        .url("https://api.example.test/payments?x=1")
        .headers(Map.of("X-Trace", List.of("t1", "t2"), "Content-Language", List.of("ja")))
        .body("{\"amount\":1000,\"currency\":\"JPY\"}".getBytes(StandardCharsets.UTF_8),
            "application/json; charset=utf-8")
        .fingerprint("ab".repeat(32))
        .state(IntentState.PENDING)
        .attempts(3)
        .nextAttemptAt(T0.plusSeconds(30))
        .pollUrl("https://api.example.test/payments/p-1")
        .lastResponse(StoredResponse.of(202, Map.of("Location", List.of("/payments/p-1")),
            "{\"status\":\"processing\"}".getBytes(StandardCharsets.UTF_8)))
        .replayed(true)
        .reason("202 Accepted: still processing")
        .createdAt(T0)
        .updatedAt(T0.plusMillis(1500))
        .expiresAt(T0.plus(Duration.ofDays(1)))
        .maybeDelivered(true)
        .keyWireForm("Idempotency-Key", '"' + key + '"')
        .traceContext(Map.of("traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        .addNote(new IntentRecord.Note(T0.plusSeconds(60), "ops@example.test",
            "checked with the provider"))
        .retryPolicy(RetryPolicy.builder().maxAttempts(9).baseDelay(Duration.ofMillis(250))
            .maxDelay(Duration.ofSeconds(40)).deadline(Duration.ofMinutes(7))
            .attemptTimeout(Duration.ofMillis(1500)).build())
        .build();
  }

  /** A minimal record in state NEW with no optional field set. */
  public static IntentRecord newRecord(String scope, String operation, String key) {
    return IntentRecord.builder()
        .id(IntentId.of(scope, operation, key))
        .method("POST")
        .url("https://api.example.test/payments")
        .fingerprint("cd".repeat(32))
        .state(IntentState.NEW)
        .createdAt(T0)
        .updatedAt(T0)
        .expiresAt(T0.plus(Duration.ofDays(1)))
        .build();
  }

  @Test
  void created_record_reads_back_equal_in_every_field() throws Exception {
    IntentRecord full = fullRecord("tenant-a", "create-payment", "k1");
    IntentRecord minimal = newRecord("tenant-a", "create-payment", "k2");
    store.create(full);
    store.create(minimal);
    store = reopen(store);
    assertThat(store.get(full.id())).contains(full);
    assertThat(store.get(minimal.id())).contains(minimal);
  }

  @Test
  void create_refuses_an_existing_id_and_keeps_the_original() throws Exception {
    IntentRecord first = fullRecord("tenant-a", "create-payment", "k1");
    store.create(first);
    IntentRecord second = newRecord("tenant-a", "create-payment", "k1");
    assertThatThrownBy(() -> store.create(second))
        .isInstanceOf(DuplicateIntentException.class)
        .hasMessageNotContaining("k1\"");
    store = reopen(store);
    assertThat(store.get(first.id())).contains(first);
  }

  @Test
  void same_key_in_another_scope_or_operation_is_another_record() throws Exception {
    IntentRecord a = newRecord("tenant-a", "create-payment", "same-key");
    IntentRecord b = newRecord("tenant-b", "create-payment", "same-key");
    IntentRecord c = newRecord("tenant-a", "issue-refund", "same-key");
    store.create(a);
    store.create(b);
    store.create(c);
    store = reopen(store);
    assertThat(store.get(a.id())).contains(a);
    assertThat(store.get(b.id())).contains(b);
    assertThat(store.get(c.id())).contains(c);
  }

  @Test
  void create_refuses_a_used_business_id_in_the_same_scope_and_operation() {
    store.create(fullRecord("tenant-a", "create-payment", "k1"));
    IntentRecord sameBusinessId = fullRecord("tenant-a", "create-payment", "k2").toBuilder()
        .businessId("order-k1").build();
    assertThatThrownBy(() -> store.create(sameBusinessId))
        .isInstanceOf(DuplicateIntentException.class);
    assertThat(store.get(sameBusinessId.id())).isEmpty();
    IntentRecord otherScope = fullRecord("tenant-b", "create-payment", "k3").toBuilder()
        .businessId("order-k1").build();
    store.create(otherScope);
    assertThat(store.findByBusinessId("tenant-b", "create-payment", "order-k1"))
        .contains(otherScope);
  }

  /** Every store refuses a taken id with the toolkit's exception and words ({@link Duplicates}). */
  @Test
  void a_taken_id_is_refused_in_the_same_words_by_every_store() {
    IntentRecord first = newRecord("tenant-a", "create-payment", "k1");
    store.create(first);
    String words = Duplicates.idTaken("", first.id()).getMessage().substring(": ".length());
    assertThatThrownBy(() -> store.create(first))
        .isInstanceOf(DuplicateIntentException.class)
        .hasMessageEndingWith(words)
        .hasMessageNotContaining("k1");
    assertThat(((DuplicateIntentException) catchThrowable(() -> store.create(first))).id())
        .isEqualTo(first.id());
  }

  /** Every store names the record and the rule when a business id is taken, never the key. */
  @Test
  void a_taken_business_id_is_refused_naming_the_rule_by_every_store() {
    store.create(fullRecord("tenant-a", "create-payment", "k1"));
    IntentRecord sameBusinessId = fullRecord("tenant-a", "create-payment", "k2").toBuilder()
        .businessId("order-k1").build();
    assertThatThrownBy(() -> store.create(sameBusinessId))
        .isInstanceOf(DuplicateIntentException.class)
        .hasMessageContaining("is already used by")
        .hasMessageContaining("scope 'tenant-a' and operation 'create-payment'")
        .hasMessageNotContaining("k2");
  }

  /** A found business id always belongs to the record returned ({@link BusinessKey#checkFound}). */
  @Test
  void find_by_business_id_returns_only_the_record_carrying_it() throws Exception {
    IntentRecord r = fullRecord("tenant-a", "create-payment", "k1");
    store.create(r);
    store = reopen(store);
    IntentRecord found = store.findByBusinessId("tenant-a", "create-payment", "order-k1")
        .orElseThrow();
    assertThat(BusinessKey.checkFound("store", found, "tenant-a", "create-payment", "order-k1"))
        .isEqualTo(r);
    assertThat(store.findByBusinessId("tenant-a", "create-payment", "order-k2")).isEmpty();
  }

  @Test
  void create_refuses_a_record_with_a_revision() {
    IntentRecord revised = newRecord("s", "op", "k").toBuilder().revision(1).build();
    assertThatThrownBy(() -> store.create(revised)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void compare_and_set_replaces_the_current_revision() throws Exception {
    IntentRecord created = newRecord("s", "op", "k");
    store.create(created);
    IntentRecord inFlight = created.successor().state(IntentState.IN_FLIGHT).attempts(1).build();
    assertThat(store.compareAndSet(created, inFlight)).isTrue();
    IntentRecord done = inFlight.successor().state(IntentState.COMPLETED)
        .lastResponse(StoredResponse.of(201, Map.of(), "ok".getBytes(StandardCharsets.UTF_8)))
        .build();
    assertThat(store.compareAndSet(inFlight, done)).isTrue();
    store = reopen(store);
    assertThat(store.get(created.id())).contains(done);
  }

  /**
   * A finished record that dropped its request (the drive's default) is written and read back as
   * given, by key and by business id, after a reopen, and is no longer unfinished.
   */
  @Test
  void a_finished_record_that_dropped_its_request_reads_back_as_written() throws Exception {
    IntentRecord created = fullRecord("s", "op", "k").toBuilder().state(IntentState.IN_FLIGHT)
        .nextAttemptAt(null).build();
    store.create(created);
    IntentRecord done = created.successor().state(IntentState.COMPLETED)
        .lastResponse(StoredResponse.of(201, Map.of(), "ok".getBytes(StandardCharsets.UTF_8)))
        .dropRequest().build();

    assertThat(store.compareAndSet(created, done)).isTrue();
    store = reopen(store);

    IntentRecord read = store.get(created.id()).orElseThrow();
    assertThat(read).isEqualTo(done);
    assertThat(read.requestDropped()).isTrue();
    assertThat(read.body()).isEmpty();
    assertThat(read.hasRequestBytes(created.body())).isTrue();
    assertThat(store.findByBusinessId("s", "op", created.businessId())).contains(done);
    assertThat(store.listUnfinished()).isEmpty();
  }

  @Test
  void compare_and_set_with_a_stale_record_changes_nothing() throws Exception {
    IntentRecord created = newRecord("s", "op", "k");
    store.create(created);
    IntentRecord winner = created.successor().state(IntentState.IN_FLIGHT).build();
    IntentRecord loser = created.successor().state(IntentState.REJECTED).build();
    assertThat(store.compareAndSet(created, winner)).isTrue();
    assertThat(store.compareAndSet(created, loser)).isFalse();
    store = reopen(store);
    assertThat(store.get(created.id())).contains(winner);
  }

  @Test
  void compare_and_set_on_a_missing_record_returns_false() {
    IntentRecord never = newRecord("s", "op", "missing");
    assertThat(store.compareAndSet(never, never.successor().build())).isFalse();
    assertThat(store.get(never.id())).isEmpty();
  }

  @Test
  void compare_and_set_refuses_a_replacement_that_skips_a_revision_or_changes_identity() {
    IntentRecord created = newRecord("s", "op", "k");
    store.create(created);
    assertThatThrownBy(() -> store.compareAndSet(created, created.toBuilder().revision(2).build()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.compareAndSet(created,
        created.successor().id(IntentId.of("s", "op", "other")).build()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.compareAndSet(created,
        created.successor().businessId("changed").build()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.get(created.id())).contains(created);
  }

  @Test
  void find_by_business_id_is_scoped() throws Exception {
    IntentRecord r = fullRecord("tenant-a", "create-payment", "k1");
    store.create(r);
    store = reopen(store);
    assertThat(store.findByBusinessId("tenant-a", "create-payment", "order-k1")).contains(r);
    assertThat(store.findByBusinessId("tenant-b", "create-payment", "order-k1")).isEmpty();
    assertThat(store.findByBusinessId("tenant-a", "issue-refund", "order-k1")).isEmpty();
    assertThat(store.findByBusinessId("tenant-a", "create-payment", "nope")).isEmpty();
  }

  @Test
  void list_unfinished_returns_only_unfinished_records_oldest_first() throws Exception {
    List<IntentRecord> unfinished = new ArrayList<>();
    int i = 0;
    for (IntentState state : IntentState.values()) {
      IntentRecord created = newRecord("s", "op", "k-" + state).toBuilder()
          .createdAt(T0.plusSeconds(100 - i++)).build();
      store.create(created);
      IntentRecord moved = created;
      if (state != IntentState.NEW) {
        moved = created.successor().state(state).build();
        assertThat(store.compareAndSet(created, moved)).isTrue();
      }
      if (!state.isTerminal()) {
        unfinished.add(0, moved);
      }
    }
    store = reopen(store);
    assertThat(store.listUnfinished()).containsExactlyElementsOf(unfinished);
  }

  @Test
  void for_each_finished_visits_every_finished_record_and_no_other() throws Exception {
    List<IntentRecord> finished = new ArrayList<>();
    for (IntentState state : IntentState.values()) {
      IntentRecord created = fullRecord("s", "op", "f-" + state);
      store.create(created);
      IntentRecord moved = created;
      if (state != IntentState.NEW) {
        moved = created.successor().state(state).build();
        assertThat(store.compareAndSet(created, moved)).isTrue();
      }
      if (state.isTerminal()) {
        finished.add(moved);
      }
    }
    store = reopen(store);
    List<IntentRecord> visited = new ArrayList<>();
    store.forEachFinished(visited::add);
    assertThat(visited).containsExactlyInAnyOrderElementsOf(finished);
  }

  @Test
  void list_unfinished_ids_names_the_same_records_with_their_due_times_oldest_first()
      throws Exception {
    List<UnfinishedEntry> expected = new ArrayList<>();
    int i = 0;
    for (IntentState state : IntentState.values()) {
      IntentRecord created = newRecord("s", "op", "id-" + state).toBuilder()
          .createdAt(T0.plusSeconds(100 - i++)).build();
      store.create(created);
      IntentRecord moved = created.successor().state(state)
          .nextAttemptAt(T0.plusSeconds(1_000 + i)).build();
      assertThat(store.compareAndSet(created, moved)).isTrue();
      if (!state.isTerminal()) {
        expected.add(0, new UnfinishedEntry(moved.id(), moved.createdAt(),
            moved.nextAttemptAt()));
      }
    }
    IntentRecord dueNow = newRecord("s", "op", "due-now").toBuilder()
        .createdAt(T0.plusSeconds(500)).build();
    store.create(dueNow);
    expected.add(new UnfinishedEntry(dueNow.id(), dueNow.createdAt(), null));
    assertThat(store.listUnfinishedIds()).containsExactlyElementsOf(expected);
    store = reopen(store);
    assertThat(store.listUnfinishedIds()).containsExactlyElementsOf(expected);
    assertThat(store.listUnfinishedIds()).extracting(UnfinishedEntry::id)
        .containsExactlyElementsOf(store.listUnfinished().stream().map(IntentRecord::id).toList());
  }

  /**
   * Records whose due times ({@link DueTime#of}) differ from their creation order, one per way of
   * being due or not: due at once ({@code NEW}, {@code IN_FLIGHT} without a hold), at the next
   * attempt time, {@link DueTime#PENDING_RETRY_FLOOR} after the last update, later, or never.
   * Returns the due ones, earliest due first, as {@code claimDue(T0 + 1000 s, ..)} must.
   */
  private List<IntentRecord> storeRecordsDueAtDifferentTimes() {
    List<IntentRecord> due = new ArrayList<>();
    // Created in this order (oldest first), due in another.
    IntentRecord pendingAtNext = create(newRecord("s", "op", "pending-next").toBuilder()
        .createdAt(T0).updatedAt(T0).build(), IntentState.PENDING, T0.plusSeconds(700), null);
    IntentRecord pendingFloor = create(newRecord("s", "op", "pending-floor").toBuilder()
        .createdAt(T0.plusSeconds(1)).updatedAt(T0.plusSeconds(1)).build(), IntentState.PENDING,
        null, T0.plusSeconds(500));
    IntentRecord neverSent = create(newRecord("s", "op", "new").toBuilder()
        .createdAt(T0.plusSeconds(2)).updatedAt(T0.plusSeconds(2)).build(), null, null, null);
    IntentRecord inFlightHeld = create(newRecord("s", "op", "in-flight-held").toBuilder()
        .createdAt(T0.plusSeconds(3)).updatedAt(T0.plusSeconds(3)).build(),
        IntentState.IN_FLIGHT, T0.plusSeconds(900), null);
    IntentRecord inFlightStale = create(newRecord("s", "op", "in-flight-stale").toBuilder()
        .createdAt(T0.plusSeconds(4)).updatedAt(T0.plusSeconds(4)).build(),
        IntentState.IN_FLIGHT, null, T0.plusSeconds(300));
    create(newRecord("s", "op", "pending-later").toBuilder().createdAt(T0.plusSeconds(5))
        .updatedAt(T0.plusSeconds(5)).build(), IntentState.PENDING, T0.plusSeconds(1001), null);
    create(newRecord("s", "op", "floor-later").toBuilder().createdAt(T0.plusSeconds(6))
        .updatedAt(T0.plusSeconds(6)).build(), IntentState.PENDING, null, T0.plusSeconds(999));
    create(newRecord("s", "op", "reconcile").toBuilder().createdAt(T0.plusSeconds(7))
        .updatedAt(T0.plusSeconds(7)).build(), IntentState.NEEDS_RECONCILIATION,
        T0.plusSeconds(10), null);
    create(newRecord("s", "op", "completed").toBuilder().createdAt(T0.plusSeconds(8))
        .updatedAt(T0.plusSeconds(8)).build(), IntentState.COMPLETED, T0.plusSeconds(10), null);
    due.add(neverSent);      // T0 + 2 s
    due.add(inFlightStale);  // T0 + 300 s
    due.add(pendingFloor);   // T0 + 505 s
    due.add(pendingAtNext);  // T0 + 700 s
    due.add(inFlightHeld);   // T0 + 900 s
    return due;
  }

  /**
   * Creates {@code created}, then, unless {@code state} is null, moves it to {@code state} with
   * {@code next} as its next attempt time, updated at {@code updatedAt} (else its creation time);
   * then ends this instance's hold on it, as a drive that wrote it does when it ends (a leasing
   * store leases what its instance writes; {@link IntentStore#release} is a no-op elsewhere).
   */
  private IntentRecord create(IntentRecord created, IntentState state, Instant next,
      Instant updatedAt) {
    store.create(created);
    IntentRecord stored = created;
    if (state != null) {
      stored = created.successor().state(state).nextAttemptAt(next)
          .updatedAt(updatedAt != null ? updatedAt : created.updatedAt()).build();
      assertThat(store.compareAndSet(created, stored)).isTrue();
    }
    store.release(stored.id());
    return stored;
  }

  /** Replaces {@code expected}, then ends this instance's hold on it (see {@link #create}). */
  private void replace(IntentRecord expected, IntentRecord replacement) {
    assertThat(store.compareAndSet(expected, replacement)).isTrue();
    store.release(replacement.id());
  }

  /** Claims, then releases what was claimed, so a leasing store hands it out again. */
  private List<IntentRecord> claimAndRelease(Instant now, int limit) {
    List<IntentRecord> claimed = store.claimDue(now, limit);
    for (IntentRecord r : claimed) {
      store.release(r.id());
    }
    return claimed;
  }

  @Test
  void claim_due_returns_the_due_records_earliest_due_first() throws Exception {
    List<IntentRecord> due = storeRecordsDueAtDifferentTimes();
    Instant now = T0.plusSeconds(1000);
    assertThat(claimAndRelease(now, 100)).containsExactlyElementsOf(due);
    assertThat(claimAndRelease(now, 2)).containsExactlyElementsOf(due.subList(0, 2));
    assertThat(claimAndRelease(T0.plusSeconds(505), 100))
        .containsExactlyElementsOf(due.subList(0, 3));
    assertThat(claimAndRelease(T0.plusSeconds(505).minusMillis(1), 100))
        .containsExactlyElementsOf(due.subList(0, 2));
    assertThat(claimAndRelease(T0, 100)).isEmpty();
    for (IntentRecord r : due) {
      assertThat(DueTime.of(r)).isBeforeOrEqualTo(now);
    }
  }

  @Test
  void claim_due_answers_the_same_after_a_reopen() throws Exception {
    List<IntentRecord> due = storeRecordsDueAtDifferentTimes();
    store = reopen(store);
    Instant now = T0.plusSeconds(1000);
    assertThat(claimAndRelease(now, 3)).containsExactlyElementsOf(due.subList(0, 3));
    assertThat(claimAndRelease(now, 100)).containsExactlyElementsOf(due);
  }

  @Test
  void claim_due_follows_every_write_of_a_record() throws Exception {
    Instant now = T0.plusSeconds(1000);
    IntentRecord created = create(newRecord("s", "op", "moving"), null, null, null);
    assertThat(claimAndRelease(now, 10)).containsExactly(created);
    IntentRecord held = created.successor().state(IntentState.IN_FLIGHT)
        .nextAttemptAt(now.plusSeconds(30)).updatedAt(now).build();
    replace(created, held);
    assertThat(claimAndRelease(now, 10)).isEmpty();
    assertThat(claimAndRelease(now.plusSeconds(30), 10)).containsExactly(held);
    IntentRecord waiting = held.successor().state(IntentState.PENDING).nextAttemptAt(null)
        .updatedAt(now).build();
    replace(held, waiting);
    assertThat(claimAndRelease(now.plus(DueTime.PENDING_RETRY_FLOOR).minusMillis(1), 10))
        .isEmpty();
    store = reopen(store);
    assertThat(claimAndRelease(now.plus(DueTime.PENDING_RETRY_FLOOR), 10))
        .containsExactly(waiting);
    replace(waiting, waiting.successor().state(IntentState.COMPLETED).build());
    assertThat(claimAndRelease(now.plusSeconds(3600), 10)).isEmpty();
    store = reopen(store);
    assertThat(claimAndRelease(now.plusSeconds(3600), 10)).isEmpty();
  }

  @Test
  void claim_due_refuses_a_limit_below_one() {
    assertThatThrownBy(() -> store.claimDue(T0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit must be positive, was 0");
  }

  @Test
  void purge_removes_only_finished_records_past_their_expiry() throws Exception {
    IntentRecord expiredDone = terminal(newRecord("s", "op", "expired-done"), T0);
    IntentRecord freshDone = terminal(newRecord("s", "op", "fresh-done"), T0.plusSeconds(3600));
    IntentRecord expiredPending = newRecord("s", "op", "expired-pending").toBuilder()
        .expiresAt(T0).build();
    store.create(expiredPending);
    assertThat(store.purgeExpired(T0.plusSeconds(1))).isEqualTo(1);
    store = reopen(store);
    assertThat(store.get(expiredDone.id())).isEmpty();
    assertThat(store.get(freshDone.id())).isPresent();
    assertThat(store.get(expiredPending.id())).contains(expiredPending);
    IntentRecord reused = newRecord("s", "op", "expired-done");
    store.create(reused);
    assertThat(store.get(reused.id())).contains(reused);
  }

  private IntentRecord terminal(IntentRecord created, Instant expiresAt) {
    IntentRecord withExpiry = created.toBuilder().expiresAt(expiresAt).build();
    store.create(withExpiry);
    IntentRecord done = withExpiry.successor().state(IntentState.COMPLETED).build();
    assertThat(store.compareAndSet(withExpiry, done)).isTrue();
    return done;
  }

  @Test
  void concurrent_creates_of_one_id_have_exactly_one_winner() throws Exception {
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger won = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int n = t;
        futures.add(pool.submit(() -> {
          start.await();
          try {
            store.create(newRecord("s", "op", "contended").toBuilder().attempts(n).build());
            won.incrementAndGet();
          } catch (DuplicateIntentException e) {
            refused.incrementAndGet();
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(won).hasValue(1);
    assertThat(refused).hasValue(threads - 1);
  }

  @Test
  void concurrent_compare_and_set_from_one_revision_has_exactly_one_winner() throws Exception {
    IntentRecord created = newRecord("s", "op", "contended");
    store.create(created);
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    AtomicInteger won = new AtomicInteger();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int n = t;
        futures.add(pool.submit(() -> {
          start.await();
          if (store.compareAndSet(created, created.successor().attempts(n + 1).build())) {
            won.incrementAndGet();
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(won).hasValue(1);
    assertThat(store.get(created.id()).orElseThrow().revision()).isEqualTo(1);
  }

  @Test
  void many_writers_lose_nothing() throws Exception {
    int threads = 8;
    int perThread = 50;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int n = t;
        futures.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) {
            IntentRecord r = newRecord("s", "op", "w" + n + "-" + i);
            store.create(r);
            assertThat(store.compareAndSet(r, r.successor().state(IntentState.COMPLETED).build()))
                .isTrue();
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    store = reopen(store);
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < perThread; i++) {
        assertThat(store.get(IntentId.of("s", "op", "w" + t + "-" + i)))
            .get().extracting(IntentRecord::state).isEqualTo(IntentState.COMPLETED);
      }
    }
    assertThat(store.listUnfinished()).isEmpty();
  }

  @Test
  void closed_store_refuses_calls() {
    store.close();
    store.close();
    assertThatThrownBy(() -> store.get(IntentId.of("s", "op", "k")))
        .isInstanceOf(StoreException.class).hasMessageEndingWith(" is closed");
    assertThatThrownBy(() -> store.create(newRecord("s", "op", "k")))
        .isInstanceOf(StoreException.class).hasMessageEndingWith(" is closed");
    store = null;
  }
}
