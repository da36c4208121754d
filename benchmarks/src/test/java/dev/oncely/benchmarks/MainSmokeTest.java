package dev.oncely.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks that the harness runs: one short iteration of every scenario against the real reference
 * server and real store files. It measures nothing (the numbers of so short a run mean nothing);
 * the published numbers come from {@code java -jar oncely-benchmarks.jar}.
 */
class MainSmokeTest {

  @Test
  void one_short_iteration_of_every_scenario_writes_csv_json_and_markdown(@TempDir Path out)
      throws Exception {
    int code = Main.run(new String[] {"--smoke", "--no-postgres", "--out", out.toString()});

    assertThat(code).isZero();
    String csv = Files.readString(out.resolve("results.csv"));
    for (String section : Main.SCENARIOS.split(",")) {
      assertThat(csv).as("rows of section %s", section).contains("\"" + section + "\"");
    }
    assertThat(csv).contains("SDK + MapDB / plain, c=1", "durable writes before first send",
        "attempts per intent", "peak rate full jitter / no jitter", "fingerprintJson size=65536");
    assertThat(csv).contains("interceptor, no store / plain, c=1",
        "interceptor + MapDB / plain, c=1", "interceptor, no store allocation per intent, c=1",
        "SQLite, 300 finished: disk per finished intent",
        "Android (arithmetic), 300 finished: disk per finished intent, encrypted",
        "finished record, RecordCodec bytes, sealed (AES-256-GCM)");
    assertThat(csv).doesNotContain("PostgreSQL, ");
    assertThat(Files.readString(out.resolve("results.json"))).contains("\"machine\"", "\"rows\"");
    assertThat(Files.readString(out.resolve("results.md")))
        .contains("# Oncely benchmark results", "| metric | unit | min | median | max |");
  }

  @Test
  void the_server_and_webhook_scenarios_run_only_when_named() {
    assertThat(Main.SCENARIOS.split(",")).doesNotContain("server", "webhook");
    assertThat(Main.OPT_IN.split(",")).contains("server", "webhook");
  }

  @Test
  void a_webhook_store_size_below_one_is_bad_usage(@TempDir Path out) {
    assertThat(Main.run(new String[] {"--only", "webhook", "--webhook-messages", "0", "--out",
        out.toString()})).isEqualTo(2);
  }

  @Test
  void an_unknown_scenario_is_bad_usage(@TempDir Path out) {
    assertThat(Main.run(new String[] {"--only", "nope", "--out", out.toString()})).isEqualTo(2);
  }

  @Test
  void an_unknown_profile_subject_or_a_bad_jit_share_is_bad_usage(@TempDir Path out) {
    assertThat(Main.run(new String[] {"--profile", "memory,nope", "--out", out.toString()}))
        .isEqualTo(2);
    assertThat(Main.run(new String[] {"--jit-quiet", "0", "--out", out.toString()})).isEqualTo(2);
    assertThat(Main.run(new String[] {"--profile-seconds", "0", "--out", out.toString()}))
        .isEqualTo(2);
  }
}
