package dev.oncely.examples.server;

import static dev.oncely.examples.server.Http.payment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each injected fault, as a client with connection retries off observes it. */
class FaultInjectionTest {
  private final List<ReferenceServer> servers = new ArrayList<>();

  private ReferenceServer start(String faults) {
    ReferenceServer server =
        ReferenceServer.builder().faults(FaultPlan.parse(faults)).build().start();
    servers.add(server);
    return server;
  }

  @AfterEach
  void closeServers() {
    servers.forEach(ReferenceServer::close);
  }

  @Test
  void drop_after_commit_fails_the_client_with_io_exception_although_the_payment_exists()
      throws Exception {
    ReferenceServer server = start("drop=1");
    Http http = new Http(server);

    assertThatThrownBy(() -> http.post("k-1", payment(1))).isInstanceOf(IOException.class);
    assertThat(server.stats().effects()).isEqualTo(1);
    assertThat(server.stats().faults(FaultKind.DROP)).isEqualTo(1);

    server.changeFaults(FaultPlan.none());
    Http.Answer retry = http.post("k-1", payment(1));
    assertThat(retry.status()).isEqualTo(201);
    assertThat(retry.replayed()).isEqualTo("true");
    assertThat(server.stats().effects()).isEqualTo(1);
  }

  @Test
  void drop_without_a_key_turns_a_plain_retry_into_a_duplicate_charge() throws Exception {
    ReferenceServer server = ReferenceServer.builder()
        .acceptKeyless(true).faults(FaultPlan.parse("drop=1")).build().start();
    servers.add(server);
    Http http = new Http(server);

    assertThatThrownBy(() -> http.post(null, payment(1))).isInstanceOf(IOException.class);
    server.changeFaults(FaultPlan.none());
    assertThat(http.post(null, payment(1)).status()).isEqualTo(201);
    assertThat(server.stats().effects()).isEqualTo(2);
    assertThat(server.stats().duplicates()).isEqualTo(1);
  }

  @Test
  void refuse_fails_the_client_with_io_exception_and_creates_nothing() throws Exception {
    ReferenceServer server = start("refuse=1");
    Http http = new Http(server);

    assertThatThrownBy(() -> http.post("k-1", payment(1))).isInstanceOf(IOException.class);
    ServerStats stats = server.stats();
    assertThat(stats.effects()).isZero();
    assertThat(stats.faults(FaultKind.REFUSE)).isEqualTo(1);

    server.changeFaults(FaultPlan.none());
    Http.Answer retry = http.post("k-1", payment(1));
    assertThat(retry.status()).isEqualTo(201);
    assertThat(retry.replayed()).isNull();
  }

  @Test
  void stall_after_commit_times_the_client_out_although_the_payment_exists() throws Exception {
    ReferenceServer server = start("stall=1,stallfor=600s");
    Http http = new Http(server, Duration.ofMillis(300));

    assertThatThrownBy(() -> http.post("k-1", payment(1)))
        .isInstanceOf(InterruptedIOException.class);
    assertThat(server.stats().effects()).isEqualTo(1);
    assertThat(server.stats().faults(FaultKind.STALL)).isEqualTo(1);
  }

  @Test
  void burst_of_503_answers_with_retry_after_for_burst_length_requests_and_creates_nothing()
      throws Exception {
    ReferenceServer server = start("burst503=1,burstlen=2");
    Http http = new Http(server);

    Http.Answer a = http.post("k-1", payment(1));
    assertThat(a.status()).isEqualTo(503);
    assertThat(a.retryAfter()).isEqualTo("1");
    assertThat(http.post("k-1", payment(1)).status()).isEqualTo(503);
    assertThat(server.stats().effects()).isZero();
    assertThat(server.stats().faults(FaultKind.BURST_503)).isEqualTo(2);

    server.changeFaults(FaultPlan.none());
    assertThat(http.post("k-1", payment(1)).status()).isEqualTo(201);
  }

  @Test
  void latency_delays_every_payments_request_and_is_counted() throws Exception {
    ReferenceServer server = start("latency=1ms");
    Http http = new Http(server);
    http.post("k-1", payment(1));
    http.get("/stats");

    assertThat(server.stats().faults(FaultKind.LATENCY)).isEqualTo(1);
    assertThat(server.stats().effects()).isEqualTo(1);
  }

  @Test
  void stats_are_never_faulted() throws Exception {
    ReferenceServer server = start("refuse=1");
    assertThat(new Http(server).get("/stats").status()).isEqualTo(200);
  }

  @Test
  void same_seed_injects_the_same_faults_for_a_sequential_client() throws Exception {
    String spec = "drop=0.3,refuse=0.2,burst503=0.1,burstlen=1,seed=7";
    List<String> first = outcomes(start(spec), 30);
    List<String> second = outcomes(start(spec), 30);

    assertThat(second).isEqualTo(first);
    assertThat(first).contains("201", "503", "IOException");
  }

  private static List<String> outcomes(ReferenceServer server, int n) {
    Http http = new Http(server);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      try {
        out.add(Integer.toString(http.post("k-" + i, payment(i)).status()));
      } catch (IOException e) {
        out.add("IOException");
      }
    }
    return out;
  }
}
