package dev.oncely.server.postgres;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.testing.ManualClock;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ServerPostgres;
import dev.oncely.server.inbox.Events;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.internal.InboxRecords;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An instance running {@link PostgresInbox} handlers is SIGKILLed on either side of a commit. At
 * every moment a message is handled exactly when its effect row is committed; after a restarted
 * instance ran what was left, every message's row exists exactly once. Before the commit the
 * killed run leaves neither (its connection's end rolls the transaction back), and the restart
 * takes the message over once its lease ran out and runs it again; after the commit it leaves
 * both, and the restart never runs it.
 */
class PostgresInboxCrashTest {
  private static final int MESSAGES = 5;
  /** The child dies at its third commit: two messages handled before, two still queued after. */
  private static final int DIE_AT = 3;
  private static ServerPostgres db;

  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();
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
    // The restarted instance keeps the dead one's name; its store is another lease owner.
    store = PostgresIntentStore.builder(db.pool()).schema(InboxEffects.SCHEMA)
        .owner("instance-a-restarted").build();
    open.add(store);
    Inbox sender = Inbox.builder(store).workers(0).build();
    for (int i = 1; i <= MESSAGES; i++) {
      sender.accept("stripe", "evt_" + i, null, ("{\"n\":" + i + "}").getBytes(UTF_8), null);
    }
    sender.close();
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private InboxMessage stored(String messageId) {
    return InboxRecords.fromRecord(store.get(InboxRecords.idOf("stripe", messageId))
        .orElseThrow());
  }

  private void childKilledAt(String mode, String line) throws Exception {
    try (ServerPostgres.Child child = ServerPostgres.Child.start(DyingInboxChild.class,
        List.of(db.url(), mode, Integer.toString(DIE_AT)), dir, mode)) {
      child.awaitLine(line, 120);
      child.kill();
    }
  }

  /** Every message is handled exactly when its row is committed, and has at most one. */
  private List<String> handledMatchesTheRows() throws Exception {
    List<String> handled = new ArrayList<>();
    for (int i = 1; i <= MESSAGES; i++) {
      String id = "evt_" + i;
      int rows = InboxEffects.count(db.pool(), id);
      assertThat(rows).as("rows of " + id).isLessThanOrEqualTo(1);
      assertThat(stored(id).state() == InboxState.HANDLED).as(id + " handled exactly when its"
          + " row is committed").isEqualTo(rows == 1);
      if (rows == 1) {
        handled.add(id);
      }
    }
    return handled;
  }

  /**
   * A restarted instance, its clock past every lease the dead one took, runs what was left;
   * returns its events.
   */
  private Events restartAndFinish(int toHandle) throws Exception {
    List<String> left = new ArrayList<>();
    for (int i = 1; i <= MESSAGES; i++) {
      if (stored("evt_" + i).state() != InboxState.HANDLED) {
        left.add("evt_" + i);
      }
    }
    assertThat(left).hasSize(toHandle);
    ManualClock later = new ManualClock(Instant.now().plus(Duration.ofMinutes(10)));
    Events events = new Events();
    Inbox restarted = Inbox.builder(store).clock(later).listener(events)
        .instance("instance-a-restarted").pollInterval(Duration.ofMillis(100))
        .handler("stripe", PostgresInbox.handler(db.pool(), store, (m, c) ->
            InboxEffects.insert(c, m.messageId(), "instance-a-restarted")))
        .build();
    open.add(restarted);
    for (String id : left) {
      events.await(InboxEvent.Kind.HANDLED, "stripe", id);
    }
    assertThat(events.all().stream().filter(e -> e.kind() == InboxEvent.Kind.HANDLED).count())
        .as("only what was left ran").isEqualTo(toHandle);
    return events;
  }

  @Test
  void killed_before_its_commit_the_run_leaves_neither_and_the_restart_runs_the_message_once()
      throws Exception {
    childKilledAt("before-commit", "WRITTEN");

    assertThat(handledMatchesTheRows()).hasSize(DIE_AT - 1);
    List<String> held = new ArrayList<>();
    for (int i = 1; i <= MESSAGES; i++) {
      if (stored("evt_" + i).state() == InboxState.PROCESSING) {
        held.add("evt_" + i);
      }
    }
    assertThat(held).as("the killed run's message").hasSize(1);

    Events events = restartAndFinish(MESSAGES - (DIE_AT - 1));

    assertThat(handledMatchesTheRows()).hasSize(MESSAGES);
    assertThat(InboxEffects.total(db.pool())).isEqualTo(MESSAGES);
    String killed = held.get(0);
    assertThat(events.count(InboxEvent.Kind.TAKEN_OVER, "stripe", killed)).isEqualTo(1);
    assertThat(stored(killed).failures()).as("the killed run").isEqualTo(1);
    assertThat(InboxEffects.instanceOf(db.pool(), killed)).isEqualTo("instance-a-restarted");
  }

  @Test
  void killed_after_its_commit_the_run_leaves_both_and_the_restart_never_runs_the_message()
      throws Exception {
    childKilledAt("after-commit", "COMMITTED");

    List<String> handledBefore = handledMatchesTheRows();
    assertThat(handledBefore).hasSize(DIE_AT);
    for (int i = 1; i <= MESSAGES; i++) {
      assertThat(stored("evt_" + i).state()).as("nothing is left processing")
          .isNotEqualTo(InboxState.PROCESSING);
    }

    Events events = restartAndFinish(MESSAGES - DIE_AT);

    assertThat(handledMatchesTheRows()).hasSize(MESSAGES);
    assertThat(InboxEffects.total(db.pool())).isEqualTo(MESSAGES);
    for (String id : handledBefore) {
      assertThat(events.count(InboxEvent.Kind.STARTED, "stripe", id)).as(id + " ran again")
          .isZero();
      assertThat(InboxEffects.instanceOf(db.pool(), id)).isEqualTo("instance-a");
      assertThat(stored(id).failures()).isZero();
    }
  }
}
