package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentStore;
import dev.oncely.postgres.CliPostgres;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.internal.InboxRecords;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code inbox list|replay} on a real PostgreSQL store (client-postgres's fixture) while an app
 * instance's inbox runs on it, as in a fleet: the CLI is one more instance, and the running
 * instance's workers run the replayed message at their next poll.
 */
class PostgresInboxCommandsTest {
  @Test
  void a_dead_message_replayed_from_the_cli_is_handled_once_by_the_running_instance()
      throws Exception {
    CliPostgres db = CliPostgres.migrated();
    String url = "postgresql://postgres@127.0.0.1:" + db.port() + "/" + db.database();
    String hash = InboxRecords.idOf("stripe", "evt_pg").safeKey();
    AtomicBoolean ledgerFixed = new AtomicBoolean();
    AtomicInteger runs = new AtomicInteger();
    BlockingQueue<InboxEvent> events = new LinkedBlockingQueue<>();
    try (IntentStore store = PostgresIntentStore.builder(db.dataSource()).owner("web-1").build();
        Inbox app = Inbox.builder(store).instance("web-1").maxFailures(1)
            .pollInterval(Duration.ofMillis(200))
            .handler("stripe", m -> {
              runs.incrementAndGet();
              if (!ledgerFixed.get()) {
                throw new IllegalStateException("the ledger is locked");
              }
            })
            .listener(events::add).build()) {
      app.accept("stripe", "evt_pg", "charge.refunded", InboxMessages.payload(),
          "application/json");
      awaitEvent(events, InboxEvent.Kind.DEAD_LETTERED);

      CliRun list = CliRun.of(Clock.systemUTC(), "inbox", "list", "--store", url, "--state",
          "dead");
      ledgerFixed.set(true);
      CliRun replay = CliRun.of(Clock.systemUTC(), "inbox", "replay", "--store", url, "stripe",
          "evt_pg", "--note", "ledger unlocked", "--author", "carol");
      InboxEvent handled = awaitEvent(events, InboxEvent.Kind.HANDLED);

      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.out()).contains(hash, "stripe", "charge.refunded", "DEAD",
          "java.lang.IllegalStateException");
      assertThat(replay.exitCode()).as(replay.toString()).isZero();
      assertThat(replay.out()).contains("DEAD -> QUEUED");
      assertThat(handled.safeKey()).isEqualTo(hash);
      InboxMessage after = app.get("stripe", "evt_pg").orElseThrow();
      assertThat(after.state()).isEqualTo(InboxState.HANDLED);
      assertThat(after.notes()).singleElement()
          .satisfies(note -> assertThat(note.author()).isEqualTo("carol"));
    }
    assertThat(runs).hasValue(2);
  }

  private static InboxEvent awaitEvent(BlockingQueue<InboxEvent> events, InboxEvent.Kind kind)
      throws InterruptedException {
    while (true) {
      InboxEvent e = events.poll(30, TimeUnit.SECONDS);
      if (e == null) {
        throw new AssertionError("no " + kind + " event within 30 s");
      }
      if (e.kind() == kind) {
        return e;
      }
    }
  }
}
