package dev.oncely.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks that the opt-in webhook scenario runs: one short iteration against real Tomcat, the real
 * webhook servlet, receiver and inbox on real MapDB and SQLite store files and a real PostgreSQL
 * server, with a 300-message filled store. It starts PostgreSQL, so it stays out of the build's
 * default test run: {@code -Doncely.benchmarks.webhook=true} runs it.
 */
@EnabledIfSystemProperty(named = "oncely.benchmarks.webhook", matches = "true")
class WebhookScenarioSmokeTest {

  @Test
  void one_short_iteration_counts_one_write_before_the_2xx_and_handles_every_accepted_event(
      @TempDir Path out) throws Exception {
    int code = Main.run(new String[] {"--smoke", "--only", "webhook", "--out", out.toString()});

    assertThat(code).isZero();
    String md = Files.readString(out.resolve("results.md"));
    assertThat(md).contains("inbox + MapDB / verify only, c=1",
        "inbox + SQLite / verify only, c=1", "inbox + PostgreSQL / verify only, c=1",
        "inbox threads' CPU per handled event", "inbox + MapDB: added p50, c=1",
        "inbox + MapDB, 300 handled / fresh store, c=1",
        "inbox + SQLite, 300 handled / fresh store, c=1");
    assertThat(md.lines().filter(l -> l.contains("writes before the 2xx per accepted event, one")))
        .hasSize(3).allSatisfy(l -> assertThat(l).endsWith("| met |"));
    assertThat(md.lines().filter(l -> l.contains("workers' writes per handled event, one")))
        .hasSize(3).allSatisfy(l -> assertThat(l).endsWith("| met |"));
    assertThat(md.lines().filter(l -> l.contains("handled once / answered 200 accepted")))
        .hasSize(5).allSatisfy(l -> assertThat(l).endsWith("| met |"));
    assertThat(md.lines().filter(l -> l.contains("handled more than once, failed")))
        .hasSize(5).allSatisfy(l -> assertThat(l).endsWith("| met |"));
  }
}
