package dev.oncely.server.postgres;

import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ServerPostgres;
import dev.oncely.server.inbox.Inbox;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Child JVM: the inbox instance {@code instance-a} runs the queued messages one at a time with
 * {@link PostgresInbox}, each writing one effect row, and waits to be SIGKILLed at its {@code
 * n}-th commit. Mode {@code before-commit}: the row and the completion are written in the open
 * transaction (the message's row locked), it prints {@code WRITTEN}; mode {@code after-commit}:
 * both are committed, it prints {@code COMMITTED}. Arguments: JDBC URL, mode, n.
 */
public final class DyingInboxChild {
  private DyingInboxChild() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(args[0]);
    boolean before = args[1].equals("before-commit");
    int dieAt = Integer.parseInt(args[2]);
    AtomicInteger commits = new AtomicInteger();
    CommitPoints.Point die = () -> {
      System.out.println(before ? "WRITTEN" : "COMMITTED");
      System.out.flush();
      ServerPostgres.Child.holdUntilStdinCloses();
    };
    // Only the handlers' transactions go through the commit points; the store has its own.
    CommitPoints handlers = new CommitPoints(dataSource, () -> {
      if (before && commits.incrementAndGet() == dieAt) {
        die.reached();
      }
    }, () -> {
      if (!before && commits.incrementAndGet() == dieAt) {
        die.reached();
      }
    });
    // A short store lease: the restarted instance waits for the dead one's row lease in the
    // database's own time (its manual clock moves only the inbox's leases), so the default 30 s
    // would race the test's wait for the take-over.
    PostgresIntentStore store = PostgresIntentStore.builder(dataSource)
        .schema(InboxEffects.SCHEMA).owner("instance-a").lease(Duration.ofSeconds(2)).build();
    Inbox inbox = Inbox.builder(store).instance("instance-a").workers(1)
        .handler("stripe", PostgresInbox.handler(handlers, store, (m, c) ->
            InboxEffects.insert(c, m.messageId(), "instance-a")))
        .build();
    inbox.pollNow();
    ServerPostgres.Child.holdUntilStdinCloses();
  }
}
