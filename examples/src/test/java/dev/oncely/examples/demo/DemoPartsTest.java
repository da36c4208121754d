package dev.oncely.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.examples.server.FaultKind;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerStats;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo's parts that need no child JVM: settings, summary parsing, rendering, naive client. */
class DemoPartsTest {
  private static final String SUMMARY = "{\"intents\":200,\"completed\":199,\"rejected\":0,"
      + "\"pending\":1,\"conflicts\":0,\"reconcile\":0,\"errors\":0,\"attempts\":260,"
      + "\"retries\":60,\"status202\":9,\"status409\":3,\"elapsedMs\":4100}";

  @Test
  void driver_summary_line_is_read_by_field_name() {
    DriverReport r = DriverReport.parse(SUMMARY);
    assertThat(r).isEqualTo(new DriverReport(200, 199, 0, 1, 0, 260, 60, 9, 3, 4100));
  }

  @Test
  void driver_summary_without_a_field_is_refused_naming_it() {
    assertThatThrownBy(() -> DriverReport.parse(SUMMARY.replace("\"retries\"", "\"retry\"")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'retries'");
    assertThatThrownBy(() -> DriverReport.parse("run: 40/200 completed"))
        .hasMessageContaining("not a JSON object");
    assertThatThrownBy(() -> DriverReport.parse(null))
        .hasMessageContaining("not a JSON object");
  }

  @Test
  void settings_refuse_bad_values_naming_the_setting_and_value() {
    assertThatThrownBy(() -> DemoSettings.builder().intents(0))
        .hasMessage("intents must be in [1, 1000000], was 0");
    assertThatThrownBy(() -> DemoSettings.builder().concurrency(2000))
        .hasMessage("concurrency must be in [1, 1024], was 2000");
    assertThatThrownBy(() -> DemoSettings.builder().slowShare(1.5))
        .hasMessage("slowShare must be in [0, 1], was 1.5");
    assertThatThrownBy(() -> DemoSettings.builder().attemptTimeout(Duration.ofMillis(1)))
        .hasMessageContaining("attemptTimeout must be in [10ms, 60s]");
  }

  @Test
  void faults_get_the_demo_seed_unless_they_name_their_own() {
    assertThat(DemoSettings.withSeed("drop=0.1", 7).seed()).isEqualTo(7);
    assertThat(DemoSettings.withSeed("drop=0.1, seed=3", 7).seed()).isEqualTo(3);
    assertThat(DemoSettings.withSeed("none", 7)).isEqualTo(FaultPlan.builder().seed(7).build());
  }

  @Test
  void faults_are_described_in_words_for_the_banner() {
    assertThat(Demo.describe(FaultPlan.parse(DemoSettings.DEFAULT_FAULTS)))
        .isEqualTo("drops 8% of answers after charging, holds 2% of answers for 4 s after"
            + " charging, refuses 4% of connections, starts a burst of 3 x 503 on 1% of requests,"
            + " adds 1 ms latency");
    assertThat(Demo.describe(FaultPlan.none())).isEqualTo("injects no faults");
  }

  @Test
  void kill_point_is_drawn_from_the_seed_between_35_and_45_percent() {
    DemoSettings a = DemoSettings.builder().intents(1000).seed(1).build();
    DemoSettings b = DemoSettings.builder().intents(1000).seed(1).build();
    assertThat(a.killAfter()).isEqualTo(b.killAfter()).isBetween(350, 450);
  }

  @Test
  void progress_bar_prints_a_plain_line_per_tenth_when_not_on_a_terminal() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
    for (int done = 0; done <= 100; done++) {
      bar.update("SDK run", done, 100, "req " + done);
    }
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(text).doesNotContain("\r");
    assertThat(text.lines()).hasSize(11);
  }

  @Test
  void progress_bar_redraws_one_line_in_place_on_a_terminal() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), true);
    bar.update("naive", 10, 100, "x");
    bar.update("naive", 50, 100, "x");
    bar.finish("naive", 100, 100, "done");
    String text = bytes.toString(StandardCharsets.UTF_8);
    assertThat(text.chars().filter(c -> c == '\n')).hasSize(1);
    assertThat(text.chars().filter(c -> c == '\r')).hasSize(3);
    assertThat(text).startsWith("\rnaive").contains("[##############################] 100/100");
  }

  @Test
  void naive_client_charges_twice_when_an_answer_is_dropped_after_the_charge()
      throws InterruptedException {
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(FaultPlan.parse("drop=0.3,seed=9"))
        .acceptKeyless(true)
        .build()
        .start()) {
      NaiveClient client = new NaiveClient(server.baseUrl(), Duration.ofSeconds(5));
      client.run(40, 4);
      ServerStats stats = server.stats();
      assertThat(client.finished()).isEqualTo(40);
      assertThat(stats.faults(FaultKind.DROP)).isPositive();
      assertThat(stats.duplicates()).isPositive();
      assertThat(stats.effects()).isEqualTo(40 + stats.duplicates());
    }
  }

  @Test
  void result_table_shows_every_measure_per_client() throws InterruptedException {
    try (ReferenceServer server = ReferenceServer.builder().build().start()) {
      ServerStats stats = server.stats();
      RunSummary sdk = new RunSummary("Oncely SDK", 100, 0, 0, stats, 12, Duration.ofMillis(2500));
      RunSummary naive = new RunSummary("naive", 0, 0, 0, stats, -1, Duration.ofMillis(900));
      String table = ResultTable.render(List.of(sdk, naive));
      assertThat(table).contains("intents", "completed", "business effects on the server",
          "duplicate charges", "lost intents", "attempts", "retries", "after a dropped answer",
          "202 accepted / status polls", "409 in progress", "at 12/100, resumed",
          "2.5 s", "0.9 s");
    }
  }
}
