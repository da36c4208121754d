package dev.oncely.cli;

import static dev.oncely.cli.Records.NOW;
import static dev.oncely.cli.Records.record;
import static dev.oncely.cli.Records.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentState;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStore;
import dev.oncely.persistence.StoreEngine;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What each way of naming a record finds on the file stores: a finished record by key hash or by
 * business id alone on SQLite (which can search its finished rows), and on MapDB (which cannot) a
 * message naming the forms that do find it.
 */
class FinishedLookupTest {
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  @TempDir Path dir;

  private Path store(StoreEngine engine, IntentRecord... records) {
    Path file = dir.resolve(engine + ".db");
    try (IntentStore store = engine.open(file)) {
      for (IntentRecord r : records) {
        store.create(r);
      }
    }
    return file;
  }

  private static IntentRecord finished() {
    return record("k-finished", IntentState.COMPLETED, Duration.ofMinutes(5))
        .lastResponse(response(201, "{}")).build();
  }

  @Test
  void sqlite_finds_a_finished_record_by_key_hash_prefix_and_by_business_id_alone() {
    IntentRecord done = finished();
    Path file = store(StoreEngine.SQLITE, done,
        record("k-open", IntentState.PENDING, Duration.ofMinutes(1)).build());

    CliRun byHash = CliRun.of(CLOCK, "show", done.id().safeKey().substring(0, 7), "--store",
        file.toString());
    assertThat(byHash.exitCode()).as(byHash.toString()).isZero();
    assertThat(byHash.out()).contains(done.id().safeKey(), "COMPLETED");
    CliRun byBusinessId = CliRun.of(CLOCK, "show", "--business-id", "order-k-finished",
        "--store", file.toString());
    assertThat(byBusinessId.exitCode()).as(byBusinessId.toString()).isZero();
    assertThat(byBusinessId.out()).contains(done.id().safeKey());
    CliRun retry = CliRun.of(CLOCK, "retry", done.id().safeKey(), "--store", file.toString());
    assertThat(retry.exitCode()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(retry.err()).contains("is COMPLETED; nothing to retry");
  }

  @Test
  void mapdb_cannot_search_finished_records_and_names_the_forms_that_find_them() {
    IntentRecord done = finished();
    Path file = store(StoreEngine.MAPDB, done);

    CliRun byHash = CliRun.of(CLOCK, "show", done.id().safeKey(), "--store", file.toString());
    assertThat(byHash.exitCode()).as(byHash.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(byHash.err()).contains("no unfinished record matches",
        "cannot search finished records by key hash", "--business-id or --key plus --scope");
    CliRun scoped = CliRun.of(CLOCK, "show", "--business-id", "order-k-finished", "--scope",
        "tenant-7", "--operation", "create-payment", "--store", file.toString());
    assertThat(scoped.exitCode()).as(scoped.toString()).isZero();
    assertThat(scoped.out()).contains(done.id().safeKey(), "COMPLETED");
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void a_malformed_key_hash_is_a_usage_error_even_when_nothing_is_unfinished(StoreEngine engine) {
    Path file = store(engine, finished());

    CliRun run = CliRun.of(CLOCK, "show", "k#zz12", "--store", file.toString());

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(run.err()).contains("at least 4 hex digits");
  }
}
