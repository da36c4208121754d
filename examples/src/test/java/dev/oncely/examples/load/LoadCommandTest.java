package dev.oncely.examples.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerDialect;
import dev.oncely.examples.server.ServerStats;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code run} and {@code resume} against the real reference server with a real SQLite store. */
class LoadCommandTest {
  @TempDir Path dir;
  private ReferenceServer server;
  private IdempotentServer kit;
  private MockWebServer kitWeb;

  private String start(ReferenceServer.Builder builder) {
    server = builder.retryAfterSeconds(0).build().start();
    return server.baseUrl() + "payments";
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (kit != null) {
      kit.close();
      kitWeb.close();
    }
  }

  /**
   * A payments server that accepts every payment with {@code 202} + {@code Location:
   * /payments/pay_…} and the body {@code {"id":"pay_…","status":"processing"}}, loses the first
   * answer of every key after committing the payment, and replays the {@code 202} without its
   * {@code Location} until the status URL is polled (it completes on the second poll).
   */
  private String startServerWhoseReplayed202LosesLocation() throws IOException {
    kit = IdempotentServer.builder()
        .asynchronous(true)
        .locationOnReplay(false)
        .statusPath("/payments/")
        .idPrefix("pay_")
        .retryAfterSeconds(0)
        .intentOf(IdempotentServer.jsonField("order"))
        .faults(FaultScript.builder().onRequestOfKey(1, Fault.dropAfterCommit()).build())
        .build();
    kitWeb = new MockWebServer();
    kitWeb.setDispatcher(kit);
    kitWeb.start(InetAddress.getLoopbackAddress(), 0);
    return kitWeb.url("/payments").toString();
  }

  private static List<String> orders(int n) {
    return IntStream.range(0, n).mapToObj(i -> "o-" + i).toList();
  }

  /** The paths of the status URLs polled, without repeats. */
  private List<String> polledStatusPaths() {
    return kit.requests().all().stream().filter(r -> r.method().equals("GET"))
        .map(ReceivedRequest::url).map(u -> u.encodedPath()).distinct().sorted()
        .collect(Collectors.toList());
  }

  /** The status path of every payment the server committed. */
  private List<String> committedStatusPaths() {
    return kit.ledger().all().stream()
        .map(e -> "/payments/pay_" + String.format("%06d", e.sequence())).sorted()
        .collect(Collectors.toList());
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

  @ParameterizedTest(name = "--entry {0}")
  @ValueSource(strings = {"intent-api", "interceptor"})
  void status_url_flags_resolve_a_replayed_202_without_location_by_polling_the_id_in_its_body(
      String entry) throws Exception {
    String target = startServerWhoseReplayed202LosesLocation();
    LoadCli run = LoadCli.main(LoadCli.args("run", target, store(), "--intents", "6",
        "--concurrency", "3", "--entry", entry,
        "--status-url-pointer", "/id", "--status-url-template", "/payments/{}"));

    assertThat(run.exitCode).as(run.stderr).isZero();
    assertThat(run.report().get("completed").asInt()).isEqualTo(6);
    assertThat(run.report().get("pending").asInt()).isZero();
    assertThat(run.stderr).doesNotContain("NO_STATUS_URL");
    kit.ledger().assertExactlyOneEffectEach(orders(6));
    assertThat(kit.ledger().size()).isEqualTo(6);
    assertThat(polledStatusPaths()).isEqualTo(committedStatusPaths());
    assertThat(kit.acceptedPending()).isZero();
  }

  @Test
  void without_the_flags_such_202s_stay_pending_no_status_url_and_resume_with_them_finishes()
      throws Exception {
    String target = startServerWhoseReplayed202LosesLocation();
    LoadCli run = LoadCli.main(LoadCli.args("run", target, store(), "--intents", "6",
        "--concurrency", "3"));

    assertThat(run.exitCode).as(run.stderr).isEqualTo(3);
    assertThat(run.report().get("completed").asInt()).isZero();
    assertThat(run.report().get("pending").asInt()).isEqualTo(6);
    assertThat(run.stderr).contains("pending by reason: NO_STATUS_URL=6");
    assertThat(polledStatusPaths()).isEmpty();
    kit.ledger().assertExactlyOneEffectEach(orders(6));

    LoadCli resume = LoadCli.main(LoadCli.args("resume", target, store(),
        "--status-url-pointer", "/id", "--status-url-template", "/payments/{}"));
    assertThat(resume.exitCode).as(resume.stderr).isZero();
    assertThat(resume.report().get("completed").asInt()).isEqualTo(6);
    kit.ledger().assertExactlyOneEffectEach(orders(6));
    assertThat(kit.ledger().size()).isEqualTo(6);
    assertThat(polledStatusPaths()).isEqualTo(committedStatusPaths());
  }

  @Test
  void status_url_flags_go_together_and_each_bad_value_exits_2_naming_it() {
    String target = "http://127.0.0.1:9/payments";
    LoadCli pointerOnly = LoadCli.main(LoadCli.args("run", target, store(), "--intents", "3",
        "--status-url-pointer", "/id"));
    LoadCli templateOnly = LoadCli.main(LoadCli.args("resume", target, store(),
        "--status-url-template", "/payments/{}"));
    LoadCli badPointer = LoadCli.main(LoadCli.args("run", target, store(), "--intents", "3",
        "--status-url-pointer", "id", "--status-url-template", "/payments/{}"));
    LoadCli noPlaceholder = LoadCli.main(LoadCli.args("run", target, store(), "--intents", "3",
        "--status-url-pointer", "/id", "--status-url-template", "/payments/id"));

    assertThat(pointerOnly.exitCode).isEqualTo(2);
    assertThat(pointerOnly.stderr).startsWith("run: option --status-url-pointer of run needs"
        + " --status-url-template (both or neither)\n");
    assertThat(templateOnly.exitCode).isEqualTo(2);
    assertThat(templateOnly.stderr).startsWith("resume: option --status-url-template of resume"
        + " needs --status-url-pointer (both or neither)\n");
    assertThat(badPointer.exitCode).isEqualTo(2);
    assertThat(badPointer.stderr).startsWith("run: option --status-url-pointer of run must be a"
        + " JSON Pointer such as /id, was 'id'\n");
    assertThat(noPlaceholder.exitCode).isEqualTo(2);
    assertThat(noPlaceholder.stderr).startsWith("run: option --status-url-template of run must be"
        + " an absolute path with {} where the value goes (not in the query), such as"
        + " /payments/{}, was '/payments/id'\n");
    assertThat(dir.resolve("store")).doesNotExist();
    assertThat(LoadCli.main("resume", "--help").stdout)
        .contains(" [--status-url-pointer JSON-POINTER --status-url-template PATH-WITH-{}]");
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
    LoadCli tinyMaxDelay = LoadCli.main(LoadCli.args("run", "http://127.0.0.1:9/p", store(),
        "--intents", "3", "--max-delay-ms", "100"));

    assertThat(noTarget.exitCode).isEqualTo(2);
    assertThat(noTarget.stderr).contains("--target is required");
    assertThat(badEngine.exitCode).isEqualTo(2);
    assertThat(badEngine.stderr).contains("--engine").contains("'leveldb'");
    assertThat(zeroConcurrency.exitCode).isEqualTo(2);
    assertThat(zeroConcurrency.stderr).contains("--concurrency").contains("'0'");
    assertThat(noIntents.exitCode).isEqualTo(2);
    assertThat(noIntents.stderr).contains("--intents is required");
    assertThat(tinyMaxDelay.exitCode).isEqualTo(2);
    assertThat(tinyMaxDelay.stderr)
        .contains("--max-delay-ms of run must be an integer in [200, 3600000], was '100'");
  }
}
