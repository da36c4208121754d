package dev.oncely.examples.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerDialect;
import dev.oncely.examples.server.ServerStats;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run} and {@code resume} against the real reference server with a real SQLite store. */
class LoadCommandTest {
  @TempDir Path dir;
  private ReferenceServer server;

  private String start(ReferenceServer.Builder builder) {
    server = builder.retryAfterSeconds(0).build().start();
    return server.baseUrl() + "payments";
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private String store() {
    return dir.resolve("store").toString();
  }

  @Test
  void run_through_faults_completes_every_intent_exactly_once_and_reports_json_last()
      throws Exception {
    String target = start(ReferenceServer.builder()
        .faults(FaultPlan.parse("drop=0.2,refuse=0.1,burst503=0.05,burstlen=2,seed=3")));
    LoadCli run = LoadCli.main(LoadCli.args("run", target, store(),
        "--intents", "40", "--concurrency", "8", "--seed", "1"));

    assertThat(run.exitCode).as(run.stderr).isZero();
    JsonNode report = run.report();
    assertThat(report.get("intents").asInt()).isEqualTo(40);
    assertThat(report.get("completed").asInt()).isEqualTo(40);
    assertThat(report.get("pending").asInt()).isZero();
    assertThat(report.get("retries").asLong()).isPositive();
    assertThat(report.get("attempts").asLong())
        .isEqualTo(40 + report.get("retries").asLong());
    assertThat(run.stderr).contains("run: 40/40 driven");
    ServerStats stats = server.stats();
    assertThat(stats.effects()).isEqualTo(40);
    assertThat(stats.duplicates()).isZero();
    assertThat(stats.effectsPerOrder()).containsKeys("o-0", "o-39").hasSize(40);
  }

  @Test
  void second_run_on_the_same_store_reports_from_the_store_without_sending() throws Exception {
    String target = start(ReferenceServer.builder().dialect(ServerDialect.STRIPE));
    LoadCli first = LoadCli.main(LoadCli.args("run", target, store(),
        "--intents", "10", "--dialect", "stripe"));
    long requestsAfterFirst = server.stats().requests();
    LoadCli second = LoadCli.main(LoadCli.args("run", target, store(),
        "--intents", "10", "--dialect", "stripe"));

    assertThat(first.exitCode).as(first.stderr).isZero();
    assertThat(second.exitCode).as(second.stderr).isZero();
    assertThat(second.report().get("completed").asInt()).isEqualTo(10);
    assertThat(second.report().get("attempts").asLong()).isZero();
    assertThat(server.stats().requests()).isEqualTo(requestsAfterFirst);
    assertThat(server.stats().effects()).isEqualTo(10);
  }

  @Test
  void run_against_a_stalling_server_exits_3_and_resume_finishes_without_duplicates()
      throws Exception {
    String target = start(ReferenceServer.builder()
        .faults(FaultPlan.parse("stall=1,stallfor=600s")));
    LoadCli run = LoadCli.main(LoadCli.args("run", target, store(), "--intents", "4",
        "--attempt-timeout-ms", "200", "--max-attempts", "2", "--deadline-ms", "5000"));

    assertThat(run.exitCode).as(run.stderr).isEqualTo(3);
    assertThat(run.report().get("pending").asInt()).isEqualTo(4);
    assertThat(run.stderr).contains("pending by reason:");
    assertThat(server.stats().effects()).isEqualTo(4);

    server.changeFaults(FaultPlan.none());
    LoadCli resume = LoadCli.main(LoadCli.args("resume", target, store()));
    assertThat(resume.exitCode).as(resume.stderr).isZero();
    assertThat(resume.report().get("completed").asInt()).isEqualTo(4);
    ServerStats stats = server.stats();
    assertThat(stats.effects()).isEqualTo(4);
    assertThat(stats.duplicates()).isZero();
    assertThat(stats.replays()).isGreaterThanOrEqualTo(4);
  }

  @Test
  void resume_on_a_store_without_a_run_exits_2_naming_the_store() {
    LoadCli resume = LoadCli.main(LoadCli.args("resume", "http://127.0.0.1:9/payments", store()));

    assertThat(resume.exitCode).isEqualTo(2);
    assertThat(resume.stderr).contains("holds no run to resume").contains(store());
  }

  @Test
  void run_with_another_intent_count_on_the_same_store_exits_2_and_sends_nothing() {
    String target = start(ReferenceServer.builder());
    LoadCli.main(LoadCli.args("run", target, store(), "--intents", "3"));
    long requests = server.stats().requests();
    LoadCli other = LoadCli.main(LoadCli.args("run", target, store(), "--intents", "5"));

    assertThat(other.exitCode).isEqualTo(2);
    assertThat(other.stderr).contains("--intents 3 but 5 was given");
    assertThat(server.stats().requests()).isEqualTo(requests);
  }

  @Test
  void run_without_target_or_with_bad_options_exits_2_naming_the_option() {
    LoadCli noTarget = LoadCli.main("run", "--intents", "3", "--store", store());
    LoadCli badEngine = LoadCli.main(LoadCli.args("run", "http://127.0.0.1:9/p", store(),
        "--intents", "3", "--engine", "leveldb"));
    LoadCli zeroConcurrency = LoadCli.main(LoadCli.args("run", "http://127.0.0.1:9/p", store(),
        "--intents", "3", "--concurrency", "0"));
    LoadCli noIntents = LoadCli.main(LoadCli.args("run", "http://127.0.0.1:9/p", store()));

    assertThat(noTarget.exitCode).isEqualTo(2);
    assertThat(noTarget.stderr).contains("--target is required");
    assertThat(badEngine.exitCode).isEqualTo(2);
    assertThat(badEngine.stderr).contains("--engine").contains("'leveldb'");
    assertThat(zeroConcurrency.exitCode).isEqualTo(2);
    assertThat(zeroConcurrency.stderr).contains("--concurrency").contains("'0'");
    assertThat(noIntents.exitCode).isEqualTo(2);
    assertThat(noIntents.stderr).contains("--intents is required");
  }
}
