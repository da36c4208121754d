package dev.oncely.cli;

import static dev.oncely.cli.Records.NOW;
import static dev.oncely.cli.Records.record;
import static dev.oncely.cli.Records.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
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
 * business id alone, on SQLite and on MapDB (both enumerate their finished records).
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
  void mapdb_finds_a_finished_record_by_key_hash_and_by_business_id_alone() {
    IntentRecord done = finished();
    Path file = store(StoreEngine.MAPDB, done);

    CliRun byHash = CliRun.of(CLOCK, "show", done.id().safeKey().substring(0, 8), "--store",
        file.toString());
    CliRun byBusinessId = CliRun.of(CLOCK, "show", "--business-id", "order-k-finished",
        "--store", file.toString());

    assertThat(byHash.exitCode()).as(byHash.toString()).isZero();
    assertThat(byHash.out()).contains(done.id().safeKey(), "COMPLETED");
    assertThat(byBusinessId.exitCode()).as(byBusinessId.toString()).isZero();
    assertThat(byBusinessId.out()).contains(done.id().safeKey());
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void a_malformed_key_hash_is_a_usage_error_even_when_nothing_is_unfinished(StoreEngine engine) {
    Path file = store(engine, finished());

    CliRun run = CliRun.of(CLOCK, "show", "k#zz12", "--store", file.toString());

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(run.err()).contains("at least 4 hex digits");
  }

  /**
   * A finished intent's record no longer holds its request: {@code show} says so and names the
   * digest of the bytes sent, its JSON form marks it, and every other field reads as before.
   */
  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void a_record_that_dropped_its_request_is_shown_with_its_digest(StoreEngine engine) {
    IntentRecord done = record("k-compact", IntentState.COMPLETED, Duration.ofMinutes(5))
        .lastResponse(response(201, "{\"id\":\"p-1\"}")).dropRequest().build();
    Path file = store(engine, done);

    CliRun text = CliRun.of(CLOCK, "show", done.id().safeKey(), "--store", file.toString());
    CliRun json = CliRun.of(CLOCK, "show", done.id().safeKey(), "--json", "--store",
        file.toString());

    assertThat(text.exitCode()).as(text.toString()).isZero();
    assertThat(text.out()).contains("COMPLETED", "201",
        "request body", "dropped when the intent finished; sha256 " + done.requestDigest());
    assertThat(text.out()).doesNotContain("X-Trace-Note");
    assertThat(json.exitCode()).as(json.toString()).isZero();
    assertThat(json.out()).contains("\"requestDropped\" : true",
        "\"requestSha256\" : \"" + done.requestDigest() + "\"");
  }
}
