package dev.oncely.cli;

import static dev.oncely.cli.ServerReceipts.OPERATION;
import static dev.oncely.cli.ServerReceipts.SCOPE;
import static dev.oncely.cli.ServerReceipts.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.postgres.CliPostgres;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.ServerAnswer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code receipts list|resolve} on a real PostgreSQL store (client-postgres's fixture) while a
 * server instance keeps it open, as in a fleet: the CLI is one more instance, and the instance
 * answers the next repeat from what the CLI wrote.
 */
class PostgresReceiptCommandsTest {
  private static final Clock LATER = Clock.fixed(T0.plus(Duration.ofMinutes(5)), ZoneOffset.UTC);

  @TempDir Path dir;

  @Test
  void a_pending_receipt_resolved_from_the_cli_is_replayed_by_the_running_instance()
      throws Exception {
    CliPostgres db = CliPostgres.migrated();
    String url = "postgresql://postgres@127.0.0.1:" + db.port() + "/" + db.database();
    Path answer = dir.resolve("answer.json");
    Files.writeString(answer, "{\"id\":\"ord_5\"}");
    AtomicInteger handlerRuns = new AtomicInteger();
    try (ServerReceipts server = ServerReceipts.on(
        PostgresIntentStore.builder(db.dataSource()).owner("web-1").build())) {
      server.pending("k-pg", "charge ch_5");
      String hash = IntentId.of(SCOPE, OPERATION, "k-pg").safeKey();

      CliRun list = CliRun.of(LATER, "receipts", "list", "--store", url);
      CliRun resolve = CliRun.of(LATER, "receipts", "resolve", hash, "--store", url, "--answer",
          "201", "--answer-body", answer.toString(), "--note", "provider shows ch_5 captured",
          "--author", "carol");

      assertThat(list.exitCode()).as(list.toString()).isZero();
      assertThat(list.out()).contains(hash, "PENDING", "charge ch_5", "5m00s");
      assertThat(resolve.exitCode()).as(resolve.toString()).isZero();
      ServerAnswer repeat = server.send("k-pg", context -> {
        handlerRuns.incrementAndGet();
        return ServerAnswer.json(500, "{}");
      });
      assertThat(repeat.status()).isEqualTo(201);
      assertThat(new String(repeat.body(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"ord_5\"}");
      assertThat(server.receipt("k-pg").notes()).singleElement()
          .satisfies(note -> assertThat(note.author()).isEqualTo("carol"));
    }
    assertThat(handlerRuns).hasValue(0);
  }
}
