package dev.oncely.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks that the opt-in server scenario runs: one short iteration against real Tomcat, a real
 * MapDB store and a real PostgreSQL server. It starts PostgreSQL, so it stays out of the build's
 * default test run: {@code -Doncely.benchmarks.server=true} runs it.
 */
@EnabledIfSystemProperty(named = "oncely.benchmarks.server", matches = "true")
class ServerScenarioSmokeTest {

  @Test
  void one_short_iteration_writes_the_server_rows_and_counts_two_durable_writes_per_request(
      @TempDir Path out) throws Exception {
    int code = Main.run(new String[] {"--smoke", "--only", "server", "--out", out.toString()});

    assertThat(code).isZero();
    String md = Files.readString(out.resolve("results.md"));
    assertThat(md).contains("filter + MapDB / without, c=1", "filter + PostgreSQL / without, c=1",
        "server threads' CPU per request", "added p50 / one raw fsync");
    assertThat(md.lines().filter(l -> l.contains("durable writes per request, one at a time")))
        .hasSize(2).allSatisfy(l -> assertThat(l).endsWith("| met |"));
  }
}
