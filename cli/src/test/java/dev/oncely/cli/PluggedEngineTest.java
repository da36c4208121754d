package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.SqliteIntentStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Another engine plugs in through {@link StoreOpener} and gets every command and error mapping. */
class PluggedEngineTest {
  private static final Clock CLOCK = Clock.fixed(Records.NOW, ZoneOffset.UTC);

  @TempDir Path dir;

  @Test
  void a_plugged_engine_is_chosen_by_its_location_and_by_name() {
    Path file = dir.resolve("plugged.db");
    try (IntentStore store = SqliteIntentStore.open(file)) {
      store.create(Records.record("p1", IntentState.PENDING, Duration.ofMinutes(2)).build());
    }

    CliRun detected = CliRun.of(CLOCK, "list", "--store", PluggedTestOpener.PREFIX + file);
    CliRun named = CliRun.of(CLOCK, "list", "--store", PluggedTestOpener.PREFIX + file,
        "--engine", "plugged");

    assertThat(detected.exitCode()).as(detected.toString()).isZero();
    assertThat(detected.out()).contains("order-p1", "1 unfinished");
    assertThat(named.exitCode()).as(named.toString()).isZero();
  }

  @Test
  void a_plugged_store_held_by_the_app_gets_the_store_in_use_answer() {
    CliRun run = CliRun.of(CLOCK, "list", "--store", PluggedTestOpener.PREFIX + "held");

    assertThat(run.exitCode()).isEqualTo(OncelyCli.EXIT_STORE_IN_USE);
    assertThat(run.err()).contains("held by the app", "Stop the app");
  }

  @Test
  void an_unknown_engine_name_lists_the_known_ones() {
    CliRun run = CliRun.of(CLOCK, "list", "--store", "x", "--engine", "postgres");

    assertThat(run.exitCode()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(run.err()).contains("unknown --engine 'postgres'", "mapdb", "sqlite", "plugged");
  }
}
