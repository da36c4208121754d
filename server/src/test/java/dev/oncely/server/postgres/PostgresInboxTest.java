package dev.oncely.server.postgres;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.testing.ManualClock;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ServerPostgres;
import dev.oncely.server.inbox.Delivery;
import dev.oncely.server.inbox.Events;
import dev.oncely.server.inbox.Gate;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.internal.InboxRecords;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PostgresInbox}: a handler's rows and its message's completion commit in one transaction
 * or not at all. Between the completion's write and the commit nothing of the run is visible; a
 * throw rolls the rows back and counts a failure; a frozen run whose lease was taken over is
 * fenced out and rolls its rows back, and the other run's end stands. The crashes on either side
 * of the commit are {@code PostgresInboxCrashTest}'s.
 */
class PostgresInboxTest {
  private static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static ServerPostgres db;

  private final ManualClock clock = new ManualClock(T0);
  private final List<Inbox> inboxes = new ArrayList<>();
  private final List<PostgresIntentStore> stores = new ArrayList<>();
  private final List<Gate> gates = new ArrayList<>();
  private PostgresIntentStore store;

  @BeforeAll
  static void database() {
    db = ServerPostgres.create();
    InboxEffects.create(db);
  }

  @AfterAll
  static void closeDatabase() {
    db.close();
  }

  @BeforeEach
  void start() {
    InboxEffects.truncate(db);
    store = openStore("instance-a");
  }

  @AfterEach
  void stop() {
    gates.forEach(Gate::open);
    inboxes.forEach(i -> i.close(Duration.ofSeconds(10)));
    stores.forEach(PostgresIntentStore::close);
  }

  private PostgresIntentStore openStore(String owner) {
    return openStore(owner, InboxEffects.SCHEMA);
  }

  private PostgresIntentStore openStore(String owner, String schema) {
    PostgresIntentStore s = PostgresIntentStore.builder(db.pool()).schema(schema).owner(owner)
        .build();
    stores.add(s);
    return s;
  }

  private Inbox start(Inbox.Builder b) {
    Inbox inbox = b.build();
    inboxes.add(inbox);
    return inbox;
  }

  private Inbox.Builder builder(PostgresIntentStore on, Events events) {
    return Inbox.builder(on).clock(clock).listener(events).lease(LEASE)
        .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1));
  }

  /** Writes one effect row of the message, as {@code instance}. */
  private static TransactionalInboxHandler effect(String instance) {
    return (m, c) -> InboxEffects.insert(c, m.messageId(), instance);
  }

  private InboxMessage stored(String source, String messageId) {
    return InboxRecords.fromRecord(store.get(InboxRecords.idOf(source, messageId)).orElseThrow());
  }

  @Test
  void the_effects_and_the_handled_message_commit_together_and_neither_is_seen_before()
      throws Exception {
    CountDownLatch atCommit = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);
    DataSource stopsAtCommit = new CommitPoints(db.pool(), () -> {
      atCommit.countDown();
      assertThat(commit.await(30, TimeUnit.SECONDS)).isTrue();
    }, () -> { });
    Events events = new Events();
    Inbox inbox = start(builder(store, events).instance("instance-a")
        .handler("stripe", PostgresInbox.handler(stopsAtCommit, store, effect("instance-a"))));
    inbox.accept("stripe", "evt_1", null, "{}".getBytes(UTF_8), null);

    assertThat(atCommit.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(InboxEffects.count(db.pool(), "evt_1")).as("the row, before the commit").isZero();
    assertThat(stored("stripe", "evt_1").state()).as("the message, before the commit")
        .isEqualTo(InboxState.PROCESSING);

    commit.countDown();
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_1");
    inbox.close();
    assertThat(InboxEffects.count(db.pool(), "evt_1")).isEqualTo(1);
    InboxMessage handled = stored("stripe", "evt_1");
    assertThat(handled.state()).isEqualTo(InboxState.HANDLED);
    assertThat(handled.revision()).as("taken (1), completed in the transaction (2), nothing more")
        .isEqualTo(2);
    assertThat(handled.expiresAt()).isEqualTo(T0.plus(Inbox.DEFAULT_RETENTION));
    assertThat(events.count(InboxEvent.Kind.FENCED_OUT, "stripe", "evt_1")).isZero();
  }

  @Test
  void a_handler_that_throws_rolls_its_rows_back_counts_a_failure_and_runs_again()
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    Events events = new Events();
    Inbox inbox = start(builder(store, events).handler("stripe", PostgresInbox.handler(
        db.pool(), store, (m, c) -> {
          InboxEffects.insert(c, m.messageId(), "instance-a");
          if (runs.incrementAndGet() == 1) {
            throw new IllegalStateException("the ledger refused");
          }
        })));
    inbox.accept("stripe", "evt_2", null, "{}".getBytes(UTF_8), null);
    events.await(InboxEvent.Kind.FAILED, "stripe", "evt_2");

    assertThat(InboxEffects.count(db.pool(), "evt_2")).isZero();
    InboxMessage queued = stored("stripe", "evt_2");
    assertThat(queued.state()).isEqualTo(InboxState.QUEUED);
    assertThat(queued.failures()).isEqualTo(1);
    assertThat(queued.lastFailure()).isEqualTo("java.lang.IllegalStateException: the ledger"
        + " refused");

    clock.advance(Duration.ofSeconds(1));
    inbox.pollNow();
    events.await(InboxEvent.Kind.HANDLED, "stripe", "evt_2");
    assertThat(InboxEffects.count(db.pool(), "evt_2")).isEqualTo(1);
    assertThat(runs).hasValue(2);
  }

  @Test
  void a_frozen_run_whose_lease_was_taken_over_is_fenced_out_and_rolls_its_rows_back()
      throws Exception {
    ManualClock frozen = new ManualClock(T0);
    Gate thaw = new Gate();
    gates.add(thaw);
    Events a = new Events();
    start(builder(store, a).clock(frozen).instance("instance-a").handler("stripe",
        PostgresInbox.handler(db.pool(), store, (m, c) -> {
          InboxEffects.insert(c, m.messageId(), "instance-a");
          thaw.pass();
        })))
        .accept("stripe", "evt_3", null, "{}".getBytes(UTF_8), null);
    thaw.awaitEntered();

    clock.advance(LEASE.plusMillis(1));
    PostgresIntentStore other = openStore("instance-b");
    Events b = new Events();
    start(builder(other, b).instance("instance-b")
        .handler("stripe", PostgresInbox.handler(db.pool(), other, effect("instance-b"))));
    b.await(InboxEvent.Kind.TAKEN_OVER, "stripe", "evt_3");
    b.await(InboxEvent.Kind.HANDLED, "stripe", "evt_3");
    InboxMessage handled = stored("stripe", "evt_3");

    thaw.open();
    a.await(InboxEvent.Kind.FENCED_OUT, "stripe", "evt_3");

    assertThat(InboxEffects.count(db.pool(), "evt_3")).isEqualTo(1);
    assertThat(InboxEffects.instanceOf(db.pool(), "evt_3")).isEqualTo("instance-b");
    InboxMessage after = stored("stripe", "evt_3");
    assertThat(after.state()).isEqualTo(InboxState.HANDLED);
    assertThat(after.revision()).isEqualTo(handled.revision());
    assertThat(after.leaseOwner()).isEqualTo("instance-b");
    assertThat(after.failures()).as("the frozen run, counted by the takeover").isEqualTo(1);
    assertThat(a.count(InboxEvent.Kind.HANDLED, "stripe", "evt_3")).isZero();
    assertThat(a.count(InboxEvent.Kind.FAILED, "stripe", "evt_3")).isZero();
  }

  @Test
  void once_with_the_transactional_handler_commits_the_rows_once_and_a_redelivery_runs_nothing()
      throws Exception {
    Inbox inbox = start(builder(store, new Events()).workers(0));

    assertThat(inbox.once("orders", "o-1", "{}".getBytes(UTF_8),
        PostgresInbox.handler(db.pool(), store, effect("consumer"))))
        .isEqualTo(Delivery.HANDLED);
    assertThat(inbox.once("orders", "o-1", "{}".getBytes(UTF_8),
        PostgresInbox.handler(db.pool(), store, effect("consumer"))))
        .isEqualTo(Delivery.ALREADY_HANDLED);

    assertThat(InboxEffects.count(db.pool(), "o-1")).isEqualTo(1);
    assertThat(stored("orders", "o-1").state()).isEqualTo(InboxState.HANDLED);
    assertThat(stored("orders", "o-1").revision()).as("created, then completed").isEqualTo(1);
  }

  @Test
  void a_handler_that_turns_auto_commit_on_fails_its_run() throws Exception {
    Events events = new Events();
    start(builder(store, events).handler("stripe", PostgresInbox.handler(db.pool(), store,
        (m, c) -> c.setAutoCommit(true))))
        .accept("stripe", "evt_4", null, "{}".getBytes(UTF_8), null);
    events.await(InboxEvent.Kind.FAILED, "stripe", "evt_4");

    assertThat(stored("stripe", "evt_4").lastFailure()).contains("turned auto-commit on");
    assertThat(stored("stripe", "evt_4").state()).isEqualTo(InboxState.QUEUED);
  }

  @Test
  void a_handler_given_a_store_the_inbox_is_not_on_fails_its_run_and_commits_nothing()
      throws Exception {
    PostgresIntentStore.migrate(db.pool(), "oncely_elsewhere");
    PostgresIntentStore elsewhere = openStore("instance-a-elsewhere", "oncely_elsewhere");
    Events events = new Events();
    start(builder(store, events).handler("stripe", PostgresInbox.handler(db.pool(), elsewhere,
        effect("instance-a"))))
        .accept("stripe", "evt_5", null, "{}".getBytes(UTF_8), null);
    events.await(InboxEvent.Kind.FAILED, "stripe", "evt_5");

    assertThat(stored("stripe", "evt_5").lastFailure()).contains("pass the store the inbox is on");
    assertThat(InboxEffects.count(db.pool(), "evt_5")).isZero();
  }
}
