package dev.oncely.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks that the scale scenario weighs every engine: one short iteration with its PostgreSQL
 * fill, on a real PostgreSQL server. It starts PostgreSQL, so like the server scenario's smoke test
 * it stays out of the build's default test run: {@code -Doncely.benchmarks.server=true} runs it.
 */
@EnabledIfSystemProperty(named = "oncely.benchmarks.server", matches = "true")
class ScaleScenarioSmokeTest {

  @Test
  void one_short_iteration_writes_the_bytes_per_finished_intent_of_every_engine(
      @TempDir Path out) throws Exception {
    int code = Main.run(new String[] {"--smoke", "--only", "scale", "--out", out.toString()});

    assertThat(code).isZero();
    String csv = Files.readString(out.resolve("results.csv"));
    assertThat(csv).contains("MapDB, 300 finished: disk per finished intent",
        "SQLite, 300 finished: disk per finished intent",
        "PostgreSQL, 300 finished: disk per finished intent, as filled",
        "PostgreSQL, 300 finished: disk per finished intent, after VACUUM FULL",
        "Android (arithmetic), 300 finished: disk per finished intent, unencrypted",
        "Android (arithmetic), 300 finished: disk per finished intent, encrypted");
  }
}
