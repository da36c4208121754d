package dev.oncely.examples.server;

import static dev.oncely.examples.server.Http.payment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The server side of the idempotency contract, driven by real OkHttp calls. */
class ReferenceServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final List<ReferenceServer> servers = new ArrayList<>();

  private ReferenceServer start(ReferenceServer.Builder builder) {
    ReferenceServer server = builder.build().start();
    servers.add(server);
    return server;
  }

  @AfterEach
  void closeServers() {
    servers.forEach(ReferenceServer::close);
  }

  @Test
  void first_request_creates_one_payment_and_answers_201_with_location() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    Http.Answer a = new Http(server).post("\"k-1\"", payment(1));

    assertThat(a.status()).isEqualTo(201);
    assertThat(a.replayed()).isNull();
    JsonNode body = JSON.readTree(a.body());
    assertThat(body.get("status").asText()).isEqualTo("succeeded");
    assertThat(body.get("amount").asLong()).isEqualTo(1001);
    assertThat(body.get("order").asText()).isEqualTo("o-1");
    assertThat(a.location()).isEqualTo("/payments/" + body.get("id").asText());
    assertThat(server.stats().effects()).isEqualTo(1);
    assertThat(server.stats().effectsForKey("k-1")).isEqualTo(1);
  }

  @Test
  void repeat_with_same_payload_replays_stored_status_and_body_byte_for_byte() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    Http http = new Http(server);
    Http.Answer first = http.post("\"k-1\"", payment(1));
    Http.Answer repeat = http.post("\"k-1\"", payment(1));

    assertThat(repeat.status()).isEqualTo(first.status());
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.location()).isEqualTo(first.location());
    assertThat(repeat.replayed()).isEqualTo("true");
    assertThat(server.stats().effects()).isEqualTo(1);
    assertThat(server.stats().replays()).isEqualTo(1);
  }

  @Test
  void payload_is_compared_as_parsed_json_so_key_order_and_blanks_do_not_matter()
      throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    Http http = new Http(server);
    http.post("k-1", "{\"amount\":1000,\"currency\":\"JPY\",\"order\":\"o-1\"}");
    Http.Answer repeat =
        http.post("k-1", "{ \"order\" : \"o-1\", \"currency\":\"JPY\", \"amount\": 1000 }");

    assertThat(repeat.status()).isEqualTo(201);
    assertThat(repeat.replayed()).isEqualTo("true");
    assertThat(server.stats().effects()).isEqualTo(1);
  }

  @Test
  void quoted_and_plain_key_forms_name_the_same_record() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder().dialect(ServerDialect.STRIPE));
    Http http = new Http(server);
    Http.Answer quoted = http.post("\"k-1\"", payment(1));
    Http.Answer plain = http.post("k-1", payment(1));

    assertThat(plain.replayed()).isEqualTo("true");
    assertThat(plain.body()).isEqualTo(quoted.body());
    assertThat(server.stats().effects()).isEqualTo(1);
  }

  @Test
  void same_key_with_other_payload_gets_422_in_ietf_dialect_and_changes_nothing()
      throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    Http http = new Http(server);
    Http.Answer first = http.post("\"k-1\"", payment(1));
    Http.Answer changed = http.post("\"k-1\"", payment(2));
    Http.Answer again = http.post("\"k-1\"", payment(1));

    assertThat(changed.status()).isEqualTo(422);
    assertThat(changed.contentType()).isEqualTo("application/problem+json");
    assertThat(changed.replayed()).isNull();
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(server.stats().effects()).isEqualTo(1);
    assertThat(server.stats().status422()).isEqualTo(1);
  }

  @Test
  void same_key_with_other_payload_gets_400_idempotency_error_in_stripe_dialect()
      throws Exception {
    ReferenceServer server = start(ReferenceServer.builder().dialect(ServerDialect.STRIPE));
    Http http = new Http(server);
    http.post("k-1", payment(1));
    Http.Answer changed = http.post("k-1", payment(2));

    assertThat(changed.status()).isEqualTo(400);
    assertThat(JSON.readTree(changed.body()).at("/error/type").asText())
        .isEqualTo("idempotency_error");
    assertThat(server.stats().effects()).isEqualTo(1);
    assertThat(server.stats().status422()).isEqualTo(1);
  }

  @Test
  void missing_key_gets_400_with_a_body_naming_the_header_and_creates_nothing()
      throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    Http.Answer a = new Http(server).post(null, payment(1));

    assertThat(a.status()).isEqualTo(400);
    assertThat(JSON.readTree(a.body()).get("error").asText())
        .isEqualTo("Idempotency-Key is required");
    assertThat(server.stats().effects()).isZero();
  }

  @Test
  void malformed_key_gets_400_without_echoing_the_key() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    Http.Answer a = new Http(server).post("\"secret-k", payment(1));

    assertThat(a.status()).isEqualTo(400);
    assertThat(a.text()).contains("never closes").doesNotContain("secret-k");
    assertThat(server.stats().effects()).isZero();
  }

  @Test
  void body_that_is_not_a_json_object_gets_400_and_reserves_nothing() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    Http http = new Http(server);
    Http.Answer bad = http.post("k-1", "[1,2]");
    Http.Answer good = http.post("k-1", payment(1));

    assertThat(bad.status()).isEqualTo(400);
    assertThat(good.status()).isEqualTo(201);
    assertThat(good.replayed()).isNull();
  }

  @Test
  void keyless_post_creates_a_new_payment_every_time_when_keyless_is_accepted()
      throws Exception {
    ReferenceServer server = start(ReferenceServer.builder().acceptKeyless(true));
    Http http = new Http(server);
    Http.Answer first = http.post(null, payment(1));
    Http.Answer second = http.post(null, payment(1));

    assertThat(first.status()).isEqualTo(201);
    assertThat(second.status()).isEqualTo(201);
    assertThat(second.body()).isNotEqualTo(first.body());
    ServerStats stats = server.stats();
    assertThat(stats.effects()).isEqualTo(2);
    assertThat(stats.keylessEffects()).isEqualTo(2);
    assertThat(stats.effectsPerOrder()).containsEntry("o-1", 2L);
    assertThat(stats.duplicates()).isEqualTo(1);
  }

  @Test
  void same_key_in_another_tenant_scope_is_another_record() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    Http http = new Http(server);
    Http.Answer a = http.post("k-1", "tenant-a", payment(1));
    Http.Answer b = http.post("k-1", "tenant-b", payment(2));

    assertThat(a.status()).isEqualTo(201);
    assertThat(b.status()).isEqualTo(201);
    assertThat(b.replayed()).isNull();
    assertThat(server.stats().effects()).isEqualTo(2);
  }

  @Test
  void business_refusal_is_stored_and_replayed_without_an_effect() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder().dialect(ServerDialect.STRIPE));
    Http http = new Http(server);
    Http.Answer first = http.post("k-1", "{\"amount\":-5,\"order\":\"o-1\"}");
    Http.Answer repeat = http.post("k-1", "{\"amount\":-5,\"order\":\"o-1\"}");

    assertThat(first.status()).isEqualTo(400);
    assertThat(JSON.readTree(first.body()).get("error").asText())
        .isEqualTo("amount must be a positive integer");
    assertThat(repeat.status()).isEqualTo(400);
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.replayed()).isEqualTo("true");
    assertThat(server.stats().effects()).isZero();
  }

  @Test
  void concurrent_identical_requests_with_one_key_create_exactly_one_payment()
      throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    Http http = new Http(server);
    int n = 16;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<Future<Http.Answer>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Callable<Http.Answer> call = () -> {
          go.await();
          return http.post("\"k-race\"", payment(7));
        };
        futures.add(pool.submit(call));
      }
      go.countDown();
      int originals = 0;
      int replays = 0;
      int inProgress = 0;
      for (Future<Http.Answer> f : futures) {
        Http.Answer a = f.get();
        if (a.status() == 409) {
          inProgress++;
          assertThat(a.retryAfter()).isEqualTo("1");
        } else {
          assertThat(a.status()).isEqualTo(201);
          if ("true".equals(a.replayed())) {
            replays++;
          } else {
            originals++;
          }
        }
      }
      assertThat(originals).isEqualTo(1);
      assertThat(replays + inProgress).isEqualTo(n - 1);
      ServerStats stats = server.stats();
      assertThat(stats.effects()).isEqualTo(1);
      assertThat(stats.replays()).isEqualTo(replays);
      assertThat(stats.status409()).isEqualTo(inProgress);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void slow_payment_answers_202_with_location_and_polling_reaches_the_payment()
      throws Exception {
    ReferenceServer server = start(ReferenceServer.builder()
        .slowShare(1.0)
        .slowFor(FaultPlan.MAX_DURATION));
    Http http = new Http(server);
    Http.Answer accepted = http.post("k-1", payment(1));

    assertThat(accepted.status()).isEqualTo(202);
    assertThat(accepted.location()).startsWith("/payments/pay_");
    assertThat(accepted.retryAfter()).isEqualTo("1");
    Http.Answer polling = http.get(accepted.location());
    assertThat(polling.status()).isEqualTo(202);
    assertThat(server.slowOperationsPending()).isEqualTo(1);
    assertThat(server.stats().effects()).as("committed at acceptance").isEqualTo(1);

    assertThat(server.finishSlowOperationsNow()).isEqualTo(1);
    Http.Answer done = http.get(accepted.location());
    assertThat(done.status()).isEqualTo(200);
    JsonNode payment = JSON.readTree(done.body());
    assertThat(payment.get("status").asText()).isEqualTo("succeeded");
    assertThat(payment.get("amount").asLong()).isEqualTo(1001);
    Http.Answer repeat = http.post("k-1", payment(1));
    assertThat(repeat.status()).isEqualTo(200);
    assertThat(repeat.body()).isEqualTo(done.body());
    assertThat(repeat.replayed()).isEqualTo("true");
    ServerStats stats = server.stats();
    assertThat(stats.effects()).isEqualTo(1);
    assertThat(stats.status202()).isEqualTo(1);
    assertThat(stats.polls()).isEqualTo(2);
  }

  @Test
  void repeat_while_the_first_is_still_processing_gets_the_202_again_with_retry_after_and_location()
      throws Exception {
    ReferenceServer server = start(ReferenceServer.builder()
        .slowShare(1.0)
        .slowFor(FaultPlan.MAX_DURATION)
        .retryAfterSeconds(2));
    Http http = new Http(server);
    Http.Answer accepted = http.post("k-1", payment(1));
    Http.Answer repeat = http.post("k-1", payment(1));

    assertThat(repeat.status()).isEqualTo(202);
    assertThat(repeat.replayed()).isEqualTo("true");
    assertThat(repeat.body()).isEqualTo(accepted.body());
    assertThat(repeat.retryAfter()).isEqualTo("2");
    assertThat(repeat.location()).isEqualTo(accepted.location());
    assertThat(server.stats().replays()).isEqualTo(1);
    assertThat(server.stats().effects()).isEqualTo(1);
  }

  @Test
  void slow_payment_completes_after_slow_for_without_being_finished_by_hand() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder()
        .slowShare(1.0)
        .slowFor(Duration.ZERO));
    Http http = new Http(server);
    Http.Answer accepted = http.post("k-1", payment(1));

    assertThat(accepted.status()).isEqualTo(202);
    assertThat(http.get(accepted.location()).status()).isEqualTo(200);
    assertThat(server.slowOperationsPending()).isZero();
  }

  @Test
  void body_over_64_kb_gets_413_and_reserves_nothing() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    Http http = new Http(server);
    String large =
        "{\"amount\":1,\"order\":\"" + "x".repeat(ReferenceServer.MAX_BODY_BYTES) + "\"}";
    Http.Answer tooLarge = http.post("k-1", large);
    Http.Answer good = http.post("k-1", payment(1));

    assertThat(tooLarge.status()).isEqualTo(413);
    assertThat(good.status()).isEqualTo(201);
    assertThat(good.replayed()).isNull();
    assertThat(server.stats().effects()).isEqualTo(1);
  }

  @Test
  void stripe_dialect_answers_in_progress_with_its_error_body_and_ietf_with_problem_json()
      throws Exception {
    for (ServerDialect dialect : ServerDialect.values()) {
      ReferenceServer server = start(ReferenceServer.builder().dialect(dialect));
      server.kit().changeFaults(FaultScript.builder()
          .onRequest(1, Fault.processingSlowly(1)).build());
      Http http = new Http(server);
      http.post("k-1", payment(1));
      Http.Answer busy = http.post("k-1", payment(1));

      assertThat(busy.status()).isEqualTo(409);
      assertThat(busy.retryAfter()).isEqualTo("1");
      if (dialect == ServerDialect.STRIPE) {
        assertThat(JSON.readTree(busy.body()).at("/error/code").asText())
            .isEqualTo("idempotency_key_in_use");
      } else {
        assertThat(busy.contentType()).isEqualTo("application/problem+json");
        assertThat(JSON.readTree(busy.body()).get("status").asInt()).isEqualTo(409);
      }
      assertThat(server.stats().status409()).isEqualTo(1);
    }
  }

  @Test
  void unknown_payment_id_gets_404() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder());
    assertThat(new Http(server).get("/payments/pay_999999").status()).isEqualTo(404);
  }

  @Test
  void stats_endpoint_serves_the_counters_as_json() throws Exception {
    ReferenceServer server = start(ReferenceServer.builder().acceptKeyless(true));
    Http http = new Http(server);
    http.post("k-1", payment(1));
    http.post("k-1", payment(1));
    http.post("k-1", payment(2));
    http.post(null, payment(3));
    http.post(null, payment(3));

    JsonNode stats = JSON.readTree(http.get("/stats").body());
    assertThat(stats.get("requests").asLong()).isEqualTo(5);
    assertThat(stats.get("effects").asLong()).isEqualTo(3);
    assertThat(stats.get("keylessEffects").asLong()).isEqualTo(2);
    assertThat(stats.get("duplicates").asLong()).isEqualTo(1);
    assertThat(stats.get("replays").asLong()).isEqualTo(1);
    assertThat(stats.get("status422").asLong()).isEqualTo(1);
    assertThat(stats.at("/effectsPerKey/k-1").asLong()).isEqualTo(1);
    assertThat(stats.at("/effectsPerOrder/o-3").asLong()).isEqualTo(2);
    assertThat(stats.at("/faults/drop").asLong()).isZero();
  }

  @Test
  void builder_refuses_bad_settings_naming_them() {
    assertThatThrownBy(() -> ReferenceServer.builder().slowShare(1.5))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slowShare");
    assertThatThrownBy(() -> ReferenceServer.builder().port(70000))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port");
    assertThatThrownBy(() -> ReferenceServer.builder().retryAfterSeconds(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryAfterSeconds");
  }

  @Test
  void server_binds_loopback_only_and_cannot_start_twice() {
    ReferenceServer server = start(ReferenceServer.builder());
    assertThat(server.baseUrl()).startsWith("http://127.0.0.1:");
    assertThatThrownBy(server::start).isInstanceOf(IllegalStateException.class);
  }
}
