package dev.oncely.server.inbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.server.internal.InboxRecords;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link Inbox} promises on every {@link IntentStore} engine it runs on: a message is stored
 * once however many deliveries race, a duplicate in any state is acknowledged and never run again,
 * a message outlives its store's close and its instance, handled messages are kept for their
 * source's retention and then purged in steps while dead and queued ones never are, and a run is
 * held under a lease: taken over once the lease ran out and not before (counting a failure, and
 * dead-lettering at the limit), fenced out when it comes back late, and kept by its renewal while
 * it runs long. With {@link StoreEncryption} the message id and the payload are not in clear where
 * the engine keeps bytes.
 *
 * <p>Time is a {@link ManualClock}: due times, leases and the renewal's "a third of the lease has
 * passed" move only when a test moves it, and {@link Inbox#pollNow()} makes the workers look. A
 * "dead" instance is an inbox closed with no grace while its handler is stuck (or a record written
 * as a dead instance leaves it); a "frozen" one is an inbox whose own clock does not move.
 *
 * <p>Each engine's class says how to open its store, reopen it (durable engines), open another
 * instance's store on the same data (a fleet member: PostgreSQL; the same store where one process
 * owns the files) and what an instance's death does to its store.
 */
abstract class InboxContract {
  static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
  static final Duration LEASE = Duration.ofSeconds(30);
  static final Duration MS = Duration.ofMillis(1);
  /** A source every test inbox handles, for {@link #drain}. */
  static final String MARKER = "marker";
  private static final SecureRandom RANDOM = new SecureRandom();

  final ManualClock clock = new ManualClock(T0);
  IntentStore store;
  private final List<IntentStore> opened = new ArrayList<>();
  private final List<Inbox> inboxes = new ArrayList<>();
  private final List<Gate> gates = new ArrayList<>();
  private final AtomicInteger markers = new AtomicInteger();
  /** Handler runs by message id, across every instance of a test. */
  final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

  /** Opens a fresh, empty store of this engine, sealing with {@code encryption} when not null. */
  abstract IntentStore openStore(@Nullable StoreEncryption encryption) throws Exception;

  /** Closes {@code store} and opens the same storage again (in memory: the same instance). */
  IntentStore reopen(IntentStore store) throws Exception {
    return store;
  }

  /** Whether a store outlives its close (files, tables); the in-memory store does not. */
  boolean durable() {
    return true;
  }

  /** Every byte the engine keeps at rest for the stores this test opened. */
  byte[] bytesAtRest() throws Exception {
    throw new UnsupportedOperationException("this engine keeps nothing at rest");
  }

  /**
   * The store another instance of the app opens on {@code store}'s data: its own store on the
   * same database for PostgreSQL; {@code store} itself where one process owns the files.
   */
  IntentStore otherInstance(IntentStore store) throws Exception {
    return store;
  }

  /**
   * What the death of the instance whose store is {@code instanceStore} does to the store: a
   * PostgreSQL store's row leases end (closing it releases them, as their expiry would); nothing
   * for a store this process shares.
   */
  void instanceDied(IntentStore instanceStore) {}

  /** Releases what the stores ran on, once every store is closed. */
  void afterStoresClosed() {}

  @BeforeEach
  void openTheStore() throws Exception {
    store = open(null);
  }

  @AfterEach
  void closeEverything() {
    // Stuck handlers go on first, so their late ends reach open stores (and are fenced out).
    gates.forEach(Gate::open);
    for (Inbox inbox : inboxes) {
      inbox.close(Duration.ofSeconds(10));
    }
    for (IntentStore s : opened) {
      s.close();
    }
    afterStoresClosed();
  }

  IntentStore open(@Nullable StoreEncryption encryption) throws Exception {
    return opened(openStore(encryption));
  }

  /** Registers {@code s} to be closed after the test. */
  IntentStore opened(IntentStore s) {
    opened.add(s);
    return s;
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** An inbox on {@code on} under the test's clock, leases of {@link #LEASE}, 1 s backoff. */
  Inbox.Builder builder(IntentStore on, Events events) {
    return Inbox.builder(on).clock(clock).listener(events).lease(LEASE)
        .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1)).handler(MARKER, m -> { });
  }

  Inbox start(Inbox.Builder b) {
    Inbox inbox = b.build();
    inboxes.add(inbox);
    return inbox;
  }

  Gate gate() {
    Gate g = new Gate();
    gates.add(g);
    return g;
  }

  /** A handler that counts its runs. */
  InboxHandler counting() {
    return m -> runs.computeIfAbsent(m.messageId(), k -> new AtomicInteger()).incrementAndGet();
  }

  /** A handler that counts its run, then is stuck in {@code gate}. */
  InboxHandler stuckIn(Gate gate) {
    InboxHandler count = counting();
    return m -> {
      count.handle(m);
      gate.pass();
    };
  }

  int runsOf(String messageId) {
    AtomicInteger n = runs.get(messageId);
    return n == null ? 0 : n.get();
  }

  /**
   * Returns once {@code inbox}'s dispatcher has looked at the store at the current time and
   * dispatched all it took: two marker messages handled one after the other (the dispatcher is
   * one thread, so the second one's look starts after the first one's ended).
   */
  void drain(Inbox inbox, Events events) throws InterruptedException {
    for (int i = 0; i < 2; i++) {
      String id = "marker-" + markers.incrementAndGet();
      inbox.accept(MARKER, id, null, new byte[0], null);
      events.await(InboxEvent.Kind.HANDLED, MARKER, id);
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  InboxMessage stored(String source, String messageId) {
    return InboxRecords.fromRecord(store.get(InboxRecords.idOf(source, messageId)).orElseThrow());
  }

  /** A message as an instance that took it and then died leaves it: processing until {@code due}. */
  static InboxMessage processingBy(String owner, String source, String messageId, Instant due) {
    byte[] payload = bytes("{\"from\":\"a dead instance\"}");
    return InboxMessage.builder().id(InboxRecords.idOf(source, messageId)).messageId(messageId)
        .payload(payload, "application/json").fingerprint(InboxRecords.fingerprintOf(payload))
        .state(InboxState.PROCESSING).revision(0).dueAt(due).leaseOwner(owner)
        .receivedAt(T0).updatedAt(T0).expiresAt(T0.plus(Inbox.DEFAULT_RETENTION)).build();
  }

  /** Writes {@code m} as another instance would have, then that instance dies. */
  void leftByADeadInstance(InboxMessage m) throws Exception {
    IntentStore dead = opened(otherInstance(store));
    dead.create(InboxRecords.toRecord(m));
    instanceDied(dead);
  }

  // ---- accept: stored once -------------------------------------------------------------------

  @Test
  void accept_stores_a_message_once_with_its_exact_bytes_and_a_redelivery_is_a_duplicate()
      throws Exception {
    Events events = new Events();
    Inbox inbox = start(builder(store, events).workers(0));
    byte[] payload = {0, (byte) 0xff, '{', '}', '\n'};

    assertThat(inbox.accept("stripe", "evt_1", "charge.succeeded", payload, "application/json"))
        .isEqualTo(Acceptance.ACCEPTED);
    assertThat(inbox.accept("stripe", "evt_1", "charge.succeeded", payload, "application/json"))
        .isEqualTo(Acceptance.DUPLICATE);
    assertThat(inbox.accept("stripe", "evt_1", "charge.refunded", bytes("other"), "text/plain"))
        .as("a delivery with other bytes keeps the stored message").isEqualTo(Acceptance.DUPLICATE);
    assertThat(inbox.accept("github", "evt_1", null, bytes("x"), null))
        .as("the same id from another source is another message").isEqualTo(Acceptance.ACCEPTED);

    InboxMessage m = stored("stripe", "evt_1");
    assertThat(m.state()).isEqualTo(InboxState.QUEUED);
    assertThat(m.payload()).isEqualTo(payload);
    assertThat(m.type()).isEqualTo("charge.succeeded");
    assertThat(m.contentType()).isEqualTo("application/json");
    assertThat(m.revision()).isZero();
    assertThat(m.receivedAt()).isEqualTo(T0);
    assertThat(m.dueAt()).isEqualTo(T0);
    assertThat(events.count(InboxEvent.Kind.ACCEPTED, "stripe", "evt_1")).isEqualTo(1);
    assertThat(events.count(InboxEvent.Kind.DUPLICATE, "stripe", "evt_1")).isEqualTo(2);
    assertThat(events.count(InboxEvent.Kind.MISMATCH, "stripe", "evt_1")).isEqualTo(1);
  }

  @Test
  void a_burst_of_one_message_from_many_threads_inserts_it_once_and_runs_it_once()
      throws Exception {
    Events events = new Events();
    Inbox inbox = start(builder(store, events).handler("stripe", counting()));
    int threads = 10;
    CyclicBarrier together = new CyclicBarrier(threads);
    ExecutorService senders = Executors.newFixedThreadPool(threads);
    List<Future<Acceptance>> answers = new ArrayList<>();
    try {
      for (int i = 0; i < threads; i++) {
        answers.add(senders.submit(() -> {
          together.await(30, TimeUnit.SECONDS);
          return inbox.accept("stripe", "evt_burst", null, bytes("{}"), null);
        }));
      }
      List<Acceptance> got = new ArrayList<>();
      for (Future<Acceptance> f : answers) {
        got.add(f.get(60, TimeUnit.SECONDS));
      }
      assertThat(got).filteredOn(a -> a == Acceptance.ACCEPTED).hasSize(1);
      assertThat(got).filteredOn(a -> a == Acceptance.DUPLICATE).hasSize(threads - 1);
    } finally {
      senders.shutdownNow();
    }
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_burst");
    drain(inbox, events);

    assertThat(runsOf("evt_burst")).isEqualTo(1);
    assertThat(events.count(InboxEvent.Kind.STARTED, "stripe", "evt_burst")).isEqualTo(1);
  }

  // ---- duplicates in every state -------------------------------------------------------------

  @Test
  void a_duplicate_while_queued_is_acknowledged_and_the_message_runs_once() throws Exception {
    Events accepting = new Events();
    Inbox acceptOnly = start(builder(store, accepting).workers(0));
    acceptOnly.accept("stripe", "evt_q", null, bytes("{}"), null);
    assertThat(acceptOnly.accept("stripe", "evt_q", null, bytes("{}"), null))
        .isEqualTo(Acceptance.DUPLICATE);
    assertThat(stored("stripe", "evt_q").revision()).as("the duplicate wrote nothing").isZero();

    Events working = new Events();
    Inbox worker = start(builder(store, working).handler("stripe", counting()));
    working.await(InboxEvent.Kind.HANDLED, "stripe", "evt_q");
    assertThat(acceptOnly.accept("stripe", "evt_q", null, bytes("{}"), null))
        .isEqualTo(Acceptance.DUPLICATE);
    drain(worker, working);

    assertThat(runsOf("evt_q")).isEqualTo(1);
  }

  @Test
  void a_duplicate_while_processing_is_acknowledged_and_never_a_second_run() throws Exception {
    Events events = new Events();
    Gate gate = gate();
    Inbox inbox = start(builder(store, events).instance("instance-a")
        .handler("stripe", stuckIn(gate)));
    inbox.accept("stripe", "evt_p", null, bytes("{}"), null);
    gate.awaitEntered();
    assertThat(stored("stripe", "evt_p").state()).isEqualTo(InboxState.PROCESSING);
    assertThat(stored("stripe", "evt_p").leaseOwner()).isEqualTo("instance-a");

    assertThat(inbox.accept("stripe", "evt_p", null, bytes("{}"), null))
        .isEqualTo(Acceptance.DUPLICATE);
    assertThatThrownBy(() -> inbox.once("stripe", "evt_p", bytes("{}"), counting()))
        .isInstanceOfSatisfying(InboxDeliveryException.class, e -> assertThat(e.busy()).isTrue());
    drain(inbox, events);
    assertThat(runsOf("evt_p")).isEqualTo(1);

    gate.open();
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_p");
    drain(inbox, events);
    assertThat(runsOf("evt_p")).isEqualTo(1);
  }

  @Test
  void a_duplicate_of_a_handled_message_is_acknowledged_and_never_run_again() throws Exception {
    Events events = new Events();
    Inbox inbox = start(builder(store, events).handler("stripe", counting()));
    inbox.accept("stripe", "evt_h", null, bytes("{}"), null);
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_h");
    InboxMessage handled = stored("stripe", "evt_h");

    assertThat(inbox.accept("stripe", "evt_h", null, bytes("{}"), null))
        .isEqualTo(Acceptance.DUPLICATE);
    assertThat(inbox.once("stripe", "evt_h", bytes("{}"), counting()))
        .isEqualTo(Delivery.ALREADY_HANDLED);
    clock.advance(Duration.ofDays(1));
    inbox.pollNow();
    drain(inbox, events);

    assertThat(runsOf("evt_h")).isEqualTo(1);
    assertThat(stored("stripe", "evt_h").revision()).isEqualTo(handled.revision());
  }

  @Test
  void a_duplicate_of_a_dead_message_is_acknowledged_and_never_run_again() throws Exception {
    Events events = new Events();
    InboxHandler count = counting();
    Inbox inbox = start(builder(store, events).maxFailures(1).handler("stripe", m -> {
      count.handle(m);
      throw new IllegalStateException("the ledger is down");
    }));
    inbox.accept("stripe", "evt_d", null, bytes("{}"), null);
    events.await(InboxEvent.Kind.DEAD_LETTERED, "stripe", "evt_d");

    assertThat(inbox.accept("stripe", "evt_d", null, bytes("{}"), null))
        .isEqualTo(Acceptance.DUPLICATE);
    assertThat(inbox.once("stripe", "evt_d", bytes("{}"), counting()))
        .isEqualTo(Delivery.DEAD_LETTERED);
    clock.advance(Duration.ofDays(1));
    inbox.pollNow();
    drain(inbox, events);

    assertThat(runsOf("evt_d")).isEqualTo(1);
    InboxMessage dead = stored("stripe", "evt_d");
    assertThat(dead.state()).isEqualTo(InboxState.DEAD);
    assertThat(dead.failures()).isEqualTo(1);
    assertThat(dead.lastFailure()).isEqualTo("java.lang.IllegalStateException: the ledger is down");
  }

  // ---- durable -------------------------------------------------------------------------------

  @Test
  void a_message_survives_closing_and_reopening_the_store_and_a_new_inbox_runs_it()
      throws Exception {
    assumeTrue(durable(), "this engine keeps nothing across a close");
    String longId = "événement " + "x".repeat(300);
    byte[] payload = {1, 2, 3, (byte) 0x80};
    Inbox first = start(builder(store, new Events()).workers(0));
    first.accept("stripe", "evt_r", "charge.succeeded", payload, "application/octet-stream");
    first.accept("custom", longId, null, bytes("long"), null);
    first.close();
    store = opened(reopen(store));

    Map<String, byte[]> seen = new ConcurrentHashMap<>();
    InboxHandler count = counting();
    InboxHandler keep = m -> {
      count.handle(m);
      seen.put(m.messageId(), m.payload());
    };
    Events events = new Events();
    Inbox second = start(builder(store, events).handler("stripe", keep).handler("custom", keep));
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_r");
    events.await(InboxEvent.Kind.HANDLED, "custom", longId);
    assertThat(seen.get("evt_r")).isEqualTo(payload);
    assertThat(seen.get(longId)).isEqualTo(bytes("long"));
    second.close();
    store = opened(reopen(store));

    Inbox third = start(builder(store, new Events()).handler("stripe", counting()));
    assertThat(third.accept("stripe", "evt_r", null, payload, null))
        .isEqualTo(Acceptance.DUPLICATE);
    assertThat(third.accept("custom", longId, null, bytes("long"), null))
        .isEqualTo(Acceptance.DUPLICATE);
    InboxMessage m = stored("stripe", "evt_r");
    assertThat(m.state()).isEqualTo(InboxState.HANDLED);
    assertThat(m.type()).isEqualTo("charge.succeeded");
    assertThat(m.contentType()).isEqualTo("application/octet-stream");
    assertThat(m.receivedAt()).isEqualTo(T0);
    assertThat(stored("custom", longId).messageId()).isEqualTo(longId);
    assertThat(runsOf("evt_r")).isEqualTo(1);
    assertThat(runsOf(longId)).isEqualTo(1);
  }

  @Test
  void with_encryption_the_message_id_and_payload_are_not_in_clear_at_rest() throws Exception {
    assumeTrue(durable(), "this engine keeps nothing at rest");
    IntentStore sealed = open(StoreEncryption.aes256Gcm(random(StoreEncryption.KEY_BYTES)));
    Marks marks = Marks.fresh();
    storeMarked(sealed, marks);

    byte[] atRest = bytesAtRest();

    assertThat(indexOf(atRest, marks.messageId())).as("the message id in clear").isEqualTo(-1);
    assertThat(indexOf(atRest, marks.secret())).as("the payload in clear").isEqualTo(-1);
    assertThat(InboxRecords.fromRecord(sealed.get(InboxRecords.idOf("stripe",
        marks.messageId())).orElseThrow()).payload()).isEqualTo(marks.payload());
  }

  /** The scan above is not blind: without encryption the same marks are found. */
  @Test
  void without_encryption_the_scan_finds_the_message_so_the_sealed_scan_is_not_blind()
      throws Exception {
    assumeTrue(durable(), "this engine keeps nothing at rest");
    Marks marks = Marks.fresh();
    storeMarked(store, marks);

    byte[] atRest = bytesAtRest();

    assertThat(indexOf(atRest, marks.secret())).as("the payload in clear").isNotEqualTo(-1);
    assertThat(indexOf(atRest, marks.messageId())).as("the message id in clear")
        .isNotEqualTo(-1);
  }

  private void storeMarked(IntentStore on, Marks marks) throws Exception {
    Events events = new Events();
    Inbox inbox = start(builder(on, events).handler("stripe", m -> { }));
    inbox.accept("stripe", marks.messageId(), "charge.succeeded", marks.payload(),
        "application/json");
    events.await(InboxEvent.Kind.HANDLED, "stripe", marks.messageId());
    inbox.close();
  }

  /** Distinct random strings that can only be in the store if it wrote them in clear. */
  record Marks(String messageId, String secret) {
    static Marks fresh() {
      HexFormat hex = HexFormat.of();
      return new Marks("evt_" + hex.formatHex(random(12)), "card-" + hex.formatHex(random(12)));
    }

    byte[] payload() {
      return bytes("{\"card\":\"" + secret + "\"}");
    }
  }

  static byte[] random(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  static int indexOf(byte[] haystack, String needle) {
    byte[] n = needle.getBytes(UTF_8);
    outer:
    for (int i = 0; i + n.length <= haystack.length; i++) {
      for (int j = 0; j < n.length; j++) {
        if (haystack[i + j] != n[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  // ---- retention and purge -------------------------------------------------------------------

  @Test
  void a_handled_message_is_kept_for_its_sources_retention_from_when_it_was_handled_then_purged_in_steps()
      throws Exception {
    WatchedStore watched = new WatchedStore(store);
    Inbox acceptOnly = start(builder(watched, new Events()).workers(0));
    acceptOnly.accept("github", "gh-1", null, bytes("{}"), null);
    acceptOnly.accept("stripe", "evt_1", null, bytes("{}"), null);
    acceptOnly.accept("broken", "b-1", null, bytes("{}"), null);
    acceptOnly.accept("nobody", "n-1", null, bytes("{}"), null);
    clock.advance(Duration.ofMinutes(10));
    Instant handledAt = clock.instant();

    Events events = new Events();
    Inbox inbox = start(builder(watched, events).retention("github", Duration.ofHours(1))
        .maxFailures(1).handler("github", counting()).handler("stripe", counting())
        .handler("broken", m -> {
          throw new IllegalStateException("always");
        }));
    events.await(InboxEvent.Kind.HANDLED, "github", "gh-1");
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_1");
    events.await(InboxEvent.Kind.DEAD_LETTERED, "broken", "b-1");
    assertThat(stored("github", "gh-1").expiresAt()).isEqualTo(handledAt.plus(Duration.ofHours(1)));
    assertThat(stored("stripe", "evt_1").expiresAt())
        .isEqualTo(handledAt.plus(Inbox.DEFAULT_RETENTION));

    Instant githubExpiry = handledAt.plus(Duration.ofHours(1));
    assertThat(inbox.purgeExpired(githubExpiry.minus(MS), Duration.ofMinutes(10))).isZero();
    assertThat(inbox.purgeExpired(githubExpiry, Duration.ofMinutes(10))).isEqualTo(1);
    assertThat(inbox.get("github", "gh-1")).isEmpty();
    assertThat(inbox.get("stripe", "evt_1")).isPresent();

    int before = watched.purgeCuts().size();
    Instant stripeExpiry = handledAt.plus(Inbox.DEFAULT_RETENTION);
    assertThat(inbox.purgeExpired(stripeExpiry, Duration.ofHours(6))).isEqualTo(1);
    List<Instant> cuts = watched.purgeCuts().subList(before, watched.purgeCuts().size());
    assertThat(cuts).as("on from the last purge, a step of expiry time at a time")
        .first().isEqualTo(githubExpiry);
    assertThat(cuts).last().isEqualTo(stripeExpiry);
    for (int i = 1; i < cuts.size(); i++) {
      assertThat(Duration.between(cuts.get(i - 1), cuts.get(i)))
          .isPositive().isLessThanOrEqualTo(Duration.ofHours(6));
    }

    assertThat(inbox.purgeExpired(T0.plus(Duration.ofDays(365)), Duration.ofDays(30))).isZero();
    assertThat(stored("broken", "b-1").state()).as("dead is never purged")
        .isEqualTo(InboxState.DEAD);
    assertThat(stored("nobody", "n-1").state()).as("queued is never purged")
        .isEqualTo(InboxState.QUEUED);
    assertThat(inbox.accept("github", "gh-1", null, bytes("{}"), null))
        .as("a redelivery after the retention is a new message").isEqualTo(Acceptance.ACCEPTED);
  }

  // ---- listing and replay --------------------------------------------------------------------

  @Test
  void listUnfinished_lists_queued_processing_and_dead_messages_oldest_first_never_handled_ones()
      throws Exception {
    Events events = new Events();
    Gate gate = gate();
    Inbox inbox = start(builder(store, events).maxFailures(1).handler("slow", stuckIn(gate))
        .handler("broken", m -> {
          throw new IllegalStateException("always");
        })
        .handler("fine", counting()));
    inbox.accept("nobody", "q-1", null, bytes("{}"), null);
    clock.advance(Duration.ofSeconds(1));
    inbox.accept("slow", "p-1", null, bytes("{}"), null);
    gate.awaitEntered();
    clock.advance(Duration.ofSeconds(1));
    inbox.accept("broken", "d-1", null, bytes("{}"), null);
    events.await(InboxEvent.Kind.DEAD_LETTERED, "broken", "d-1");
    clock.advance(Duration.ofSeconds(1));
    inbox.accept("fine", "h-1", null, bytes("{}"), null);
    events.await(InboxEvent.Kind.HANDLED, "fine", "h-1");

    List<InboxMessage> unfinished = inbox.listUnfinished();

    assertThat(unfinished).extracting(InboxMessage::messageId)
        .containsExactly("q-1", "p-1", "d-1");
    assertThat(unfinished).extracting(InboxMessage::state)
        .containsExactly(InboxState.QUEUED, InboxState.PROCESSING, InboxState.DEAD);
  }

  @Test
  void replay_queues_a_dead_message_with_its_failures_reset_and_its_note_and_it_runs_again()
      throws Exception {
    Events events = new Events();
    AtomicInteger n = new AtomicInteger();
    Inbox inbox = start(builder(store, events).maxFailures(2).handler("stripe", m -> {
      if (n.incrementAndGet() <= 2) {
        throw new IllegalStateException("down");
      }
    }));
    inbox.accept("stripe", "evt_1", null, bytes("{}"), null);
    events.await(InboxEvent.Kind.FAILED, "stripe", "evt_1");
    clock.advance(Duration.ofSeconds(1));
    inbox.pollNow();
    events.await(InboxEvent.Kind.DEAD_LETTERED, "stripe", "evt_1");
    clock.advance(Duration.ofHours(1));

    InboxMessage queued = inbox.replay("stripe", "evt_1", "ops", "the ledger is back");
    assertThat(queued.state()).isEqualTo(InboxState.QUEUED);
    assertThat(queued.failures()).isZero();
    assertThat(queued.dueAt()).isEqualTo(clock.instant());
    events.await(InboxEvent.Kind.REPLAYED, "stripe", "evt_1");
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_1");

    InboxMessage handled = stored("stripe", "evt_1");
    assertThat(handled.state()).isEqualTo(InboxState.HANDLED);
    assertThat(handled.failures()).isZero();
    assertThat(handled.notes()).singleElement().satisfies(note -> {
      assertThat(note.author()).isEqualTo("ops");
      assertThat(note.text()).isEqualTo("the ledger is back");
      assertThat(note.at()).isEqualTo(queued.updatedAt());
    });
    assertThat(n).hasValue(3);
  }

  @Test
  void replay_makes_a_message_waiting_out_its_backoff_due_now() throws Exception {
    Events events = new Events();
    AtomicInteger n = new AtomicInteger();
    Inbox inbox = start(builder(store, events).backoff(Duration.ofHours(1), Duration.ofHours(1))
        .handler("stripe", m -> {
          if (n.incrementAndGet() == 1) {
            throw new IllegalStateException("once");
          }
        }));
    inbox.accept("stripe", "evt_1", null, bytes("{}"), null);
    events.await(InboxEvent.Kind.FAILED, "stripe", "evt_1");
    assertThat(stored("stripe", "evt_1").dueAt()).isAfter(clock.instant());

    inbox.replay("stripe", "evt_1", "ops", "try now");
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_1");

    assertThat(n).hasValue(2);
    assertThat(clock.instant()).isEqualTo(T0);
  }

  @Test
  void replay_refuses_a_handled_or_processing_message_and_a_missing_one() throws Exception {
    Events events = new Events();
    Gate gate = gate();
    Inbox inbox = start(builder(store, events).handler("fine", counting())
        .handler("slow", stuckIn(gate)));
    inbox.accept("fine", "h-1", null, bytes("{}"), null);
    events.await(InboxEvent.Kind.HANDLED, "fine", "h-1");
    inbox.accept("slow", "p-1", null, bytes("{}"), null);
    gate.awaitEntered();

    assertThatThrownBy(() -> inbox.replay("fine", "h-1", "ops", "again"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("HANDLED");
    assertThatThrownBy(() -> inbox.replay("slow", "p-1", "ops", "again"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("PROCESSING");
    assertThatThrownBy(() -> inbox.replay("fine", "never-sent", "ops", "again"))
        .isInstanceOf(NoSuchElementException.class);
    assertThat(stored("fine", "h-1").notes()).isEmpty();
    assertThat(runsOf("h-1")).isEqualTo(1);
  }

  // ---- once ----------------------------------------------------------------------------------

  @Test
  void once_runs_the_handler_on_the_callers_thread_once_and_a_redelivery_is_already_handled()
      throws Exception {
    Inbox inbox = start(builder(store, new Events()).workers(0));
    Thread caller = Thread.currentThread();
    List<Thread> ranOn = new ArrayList<>();
    InboxHandler handler = m -> {
      ranOn.add(Thread.currentThread());
      counting().handle(m);
    };

    assertThat(inbox.once("orders", "42", bytes("a"), handler)).isEqualTo(Delivery.HANDLED);
    assertThat(inbox.once("orders", "42", bytes("a"), handler))
        .isEqualTo(Delivery.ALREADY_HANDLED);
    inbox.accept("orders", "43", null, bytes("b"), null);
    assertThat(inbox.once("orders", "43", bytes("b"), handler))
        .as("a message accepted before and still queued").isEqualTo(Delivery.HANDLED);

    assertThat(ranOn).containsExactly(caller, caller);
    assertThat(runsOf("42")).isEqualTo(1);
    assertThat(runsOf("43")).isEqualTo(1);
    assertThat(stored("orders", "42").state()).isEqualTo(InboxState.HANDLED);
  }

  @Test
  void once_counts_each_failure_and_at_the_limit_is_dead_lettered_and_never_runs_again()
      throws Exception {
    Inbox inbox = start(builder(store, new Events()).workers(0).maxFailures(2));
    InboxHandler count = counting();
    InboxHandler failing = m -> {
      count.handle(m);
      throw new java.io.IOException("ledger unavailable");
    };

    assertThatThrownBy(() -> inbox.once("jobs", "j-1", bytes("{}"), failing))
        .isInstanceOfSatisfying(InboxDeliveryException.class, e -> {
          assertThat(e.busy()).isFalse();
          assertThat(e.getCause()).hasMessage("ledger unavailable");
        });
    assertThat(stored("jobs", "j-1").state()).isEqualTo(InboxState.QUEUED);
    assertThat(stored("jobs", "j-1").failures()).isEqualTo(1);

    assertThat(inbox.once("jobs", "j-1", bytes("{}"), failing))
        .isEqualTo(Delivery.DEAD_LETTERED);
    assertThat(inbox.once("jobs", "j-1", bytes("{}"), failing))
        .isEqualTo(Delivery.DEAD_LETTERED);
    assertThat(runsOf("j-1")).isEqualTo(2);
    assertThat(stored("jobs", "j-1").state()).isEqualTo(InboxState.DEAD);
  }

  @Test
  void once_takes_over_a_message_whose_holder_died_only_after_its_lease_ran_out()
      throws Exception {
    leftByADeadInstance(processingBy("dead-instance", "jobs", "j-2", T0.plus(LEASE)));
    Inbox inbox = start(builder(store, new Events()).workers(0));
    clock.advance(LEASE.minus(MS));

    assertThatThrownBy(() -> inbox.once("jobs", "j-2", bytes("{}"), counting()))
        .isInstanceOfSatisfying(InboxDeliveryException.class, e -> assertThat(e.busy()).isTrue());
    clock.advance(MS);
    assertThat(inbox.once("jobs", "j-2", bytes("{}"), counting())).isEqualTo(Delivery.HANDLED);

    assertThat(runsOf("j-2")).isEqualTo(1);
    InboxMessage handled = stored("jobs", "j-2");
    assertThat(handled.state()).isEqualTo(InboxState.HANDLED);
    assertThat(handled.failures()).as("the dead run").isEqualTo(1);
  }

  // ---- leases and fencing --------------------------------------------------------------------

  @Test
  void a_run_whose_instance_stopped_is_taken_over_once_its_lease_ran_out_not_before_and_counts_one_failure()
      throws Exception {
    Gate stuck = gate();
    Events a = new Events();
    Inbox first = start(builder(store, a).instance("instance-a")
        .handler("stripe", stuckIn(stuck)));
    first.accept("stripe", "evt_1", null, bytes("{}"), null);
    stuck.awaitEntered();
    first.close(Duration.ZERO);

    Events b = new Events();
    Inbox second = start(builder(opened(otherInstance(store)), b).instance("instance-b")
        .handler("stripe", counting()));
    clock.advance(LEASE.minus(MS));
    second.pollNow();
    drain(second, b);
    assertThat(b.count(InboxEvent.Kind.TAKEN_OVER, "stripe", "evt_1")).isZero();
    assertThat(stored("stripe", "evt_1").leaseOwner()).isEqualTo("instance-a");
    assertThat(runsOf("evt_1")).isEqualTo(1);

    clock.advance(MS);
    second.pollNow();
    b.await(InboxEvent.Kind.TAKEN_OVER, "stripe", "evt_1");
    b.await(InboxEvent.Kind.HANDLED, "stripe", "evt_1");

    InboxMessage handled = stored("stripe", "evt_1");
    assertThat(handled.state()).isEqualTo(InboxState.HANDLED);
    assertThat(handled.leaseOwner()).isEqualTo("instance-b");
    assertThat(handled.failures()).isEqualTo(1);
    assertThat(handled.lastFailure()).contains("lease ran out");
    assertThat(runsOf("evt_1")).isEqualTo(2);

    stuck.open();
    a.await(InboxEvent.Kind.FENCED_OUT, "stripe", "evt_1");
    assertThat(stored("stripe", "evt_1").revision()).isEqualTo(handled.revision());
  }

  @Test
  void a_message_left_processing_by_a_dead_instance_is_taken_over_after_its_lease_not_before()
      throws Exception {
    leftByADeadInstance(processingBy("dead-instance", "stripe", "evt_2", T0.plus(LEASE)));
    clock.advance(LEASE.minus(MS));
    Events events = new Events();
    Inbox inbox = start(builder(store, events).handler("stripe", counting()));
    drain(inbox, events);
    assertThat(runsOf("evt_2")).isZero();
    assertThat(stored("stripe", "evt_2").state()).isEqualTo(InboxState.PROCESSING);
    assertThat(stored("stripe", "evt_2").leaseOwner()).isEqualTo("dead-instance");

    clock.advance(MS);
    inbox.pollNow();
    events.await(InboxEvent.Kind.TAKEN_OVER, "stripe", "evt_2");
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_2");

    assertThat(runsOf("evt_2")).isEqualTo(1);
    assertThat(stored("stripe", "evt_2").failures()).isEqualTo(1);
  }

  @Test
  void a_message_that_kills_its_run_max_failures_times_ends_dead_and_the_takeover_at_the_limit_runs_nothing()
      throws Exception {
    Gate firstRun = gate();
    Inbox first = start(builder(store, new Events()).maxFailures(2).instance("instance-a")
        .handler("stripe", stuckIn(firstRun)));
    first.accept("stripe", "evt_k", null, bytes("{}"), null);
    firstRun.awaitEntered();
    first.close(Duration.ZERO);

    clock.advance(LEASE);
    Gate secondRun = gate();
    Events b = new Events();
    Inbox second = start(builder(opened(otherInstance(store)), b).maxFailures(2)
        .instance("instance-b").handler("stripe", stuckIn(secondRun)));
    b.await(InboxEvent.Kind.TAKEN_OVER, "stripe", "evt_k");
    secondRun.awaitEntered();
    second.close(Duration.ZERO);
    assertThat(stored("stripe", "evt_k").failures()).isEqualTo(1);

    clock.advance(LEASE);
    Events c = new Events();
    Inbox third = start(builder(opened(otherInstance(store)), c).maxFailures(2)
        .instance("instance-c").handler("stripe", counting()));
    c.await(InboxEvent.Kind.DEAD_LETTERED, "stripe", "evt_k");
    drain(third, c);

    InboxMessage dead = stored("stripe", "evt_k");
    assertThat(dead.state()).isEqualTo(InboxState.DEAD);
    assertThat(dead.failures()).isEqualTo(2);
    assertThat(runsOf("evt_k")).as("the two killed runs; none at the limit").isEqualTo(2);
    assertThat(c.count(InboxEvent.Kind.STARTED, "stripe", "evt_k")).isZero();
    assertThat(third.listUnfinished()).extracting(InboxMessage::messageId).contains("evt_k");
  }

  @Test
  void a_frozen_instance_whose_lease_was_taken_over_cannot_complete_the_message()
      throws Exception {
    ManualClock frozen = new ManualClock(T0);
    Gate thaw = gate();
    Events a = new Events();
    Inbox frozenInbox = start(builder(store, a).clock(frozen).instance("instance-a")
        .handler("stripe", stuckIn(thaw)));
    frozenInbox.accept("stripe", "evt_f", null, bytes("{}"), null);
    thaw.awaitEntered();

    clock.advance(LEASE.plus(MS));
    Events b = new Events();
    start(builder(opened(otherInstance(store)), b).instance("instance-b")
        .handler("stripe", counting()));
    b.await(InboxEvent.Kind.TAKEN_OVER, "stripe", "evt_f");
    b.await(InboxEvent.Kind.HANDLED, "stripe", "evt_f");
    InboxMessage handled = stored("stripe", "evt_f");

    thaw.open();
    a.await(InboxEvent.Kind.FENCED_OUT, "stripe", "evt_f");

    InboxMessage after = stored("stripe", "evt_f");
    assertThat(after.state()).isEqualTo(InboxState.HANDLED);
    assertThat(after.revision()).isEqualTo(handled.revision());
    assertThat(after.leaseOwner()).isEqualTo("instance-b");
    assertThat(after.updatedAt()).isEqualTo(handled.updatedAt());
    assertThat(a.count(InboxEvent.Kind.HANDLED, "stripe", "evt_f")).isZero();
    assertThat(runsOf("evt_f")).isEqualTo(2);
  }

  @Test
  void a_frozen_instance_whose_run_fails_after_the_takeover_cannot_requeue_or_count_it()
      throws Exception {
    ManualClock frozen = new ManualClock(T0);
    Gate thaw = gate();
    Events a = new Events();
    Inbox frozenInbox = start(builder(store, a).clock(frozen).instance("instance-a")
        .handler("stripe", m -> {
          thaw.pass();
          throw new IllegalStateException("failed after the thaw");
        }));
    frozenInbox.accept("stripe", "evt_g", null, bytes("{}"), null);
    thaw.awaitEntered();

    clock.advance(LEASE.plus(MS));
    Events b = new Events();
    start(builder(opened(otherInstance(store)), b).instance("instance-b")
        .handler("stripe", counting()));
    b.await(InboxEvent.Kind.HANDLED, "stripe", "evt_g");
    InboxMessage handled = stored("stripe", "evt_g");

    thaw.open();
    a.await(InboxEvent.Kind.FENCED_OUT, "stripe", "evt_g");

    InboxMessage after = stored("stripe", "evt_g");
    assertThat(after.state()).isEqualTo(InboxState.HANDLED);
    assertThat(after.revision()).isEqualTo(handled.revision());
    assertThat(after.failures()).isEqualTo(1);
    assertThat(a.count(InboxEvent.Kind.FAILED, "stripe", "evt_g")).isZero();
  }

  @Test
  void the_renewal_keeps_a_long_handlers_message_from_being_taken_over() throws Exception {
    // A short lease: the renewal sweep runs every sixth of it (in real time) to look.
    Duration lease = Duration.ofSeconds(3);
    WatchedStore watched = new WatchedStore(store);
    Gate longRun = gate();
    Events a = new Events();
    start(builder(watched, a).lease(lease).instance("instance-a")
        .handler("stripe", stuckIn(longRun)))
        .accept("stripe", "evt_l", null, bytes("{}"), null);
    longRun.awaitEntered();
    assertThat(stored("stripe", "evt_l").dueAt()).isEqualTo(T0.plus(lease));

    clock.advance(lease.dividedBy(2));
    IntentRecord renewal = watched.awaitWrite(r -> r.state() == IntentState.IN_FLIGHT
        && r.nextAttemptAt() != null && r.nextAttemptAt().isAfter(T0.plus(lease)));
    assertThat(renewal.nextAttemptAt()).isEqualTo(T0.plus(lease.dividedBy(2)).plus(lease));

    clock.advance(lease.dividedBy(2).plus(MS));
    Events b = new Events();
    Inbox other = start(builder(opened(otherInstance(store)), b).lease(lease)
        .instance("instance-b").handler("stripe", counting()));
    drain(other, b);
    assertThatThrownBy(() -> other.once("stripe", "evt_l", bytes("{}"), counting()))
        .isInstanceOfSatisfying(InboxDeliveryException.class, e -> assertThat(e.busy()).isTrue());
    assertThat(b.count(InboxEvent.Kind.TAKEN_OVER, "stripe", "evt_l")).isZero();

    longRun.open();
    a.await(InboxEvent.Kind.HANDLED, "stripe", "evt_l");
    InboxMessage handled = stored("stripe", "evt_l");
    assertThat(handled.leaseOwner()).isEqualTo("instance-a");
    assertThat(handled.failures()).isZero();
    assertThat(runsOf("evt_l")).isEqualTo(1);
  }
}
