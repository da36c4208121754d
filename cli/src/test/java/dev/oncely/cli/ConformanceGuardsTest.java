package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/** What the conformance check refuses, and what it says about a server without idempotency. */
class ConformanceGuardsTest {
  @Test
  void a_host_that_is_not_loopback_is_refused_without_yes_and_nothing_is_sent() {
    CliRun run = CliRun.of(Clock.systemUTC(), "conformance", "http://192.0.2.10/payments",
        "--body", "{\"amount\":1}");

    assertThat(run.exitCode()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(run.err()).contains("192.0.2.10 is not a loopback host", "--yes",
        "up to 15 real effects");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void a_host_that_does_not_resolve_counts_as_not_loopback() {
    CliRun run = CliRun.of(Clock.systemUTC(), "conformance", "https://no-such-host.invalid/pay",
        "--body", "{}");

    assertThat(run.exitCode()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(run.err()).contains("not a loopback host");
  }

  @Test
  void a_server_that_ignores_the_key_is_reported_as_a_second_effect() throws Exception {
    AtomicInteger effects = new AtomicInteger();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          return new MockResponse.Builder().code(201)
              .body("{\"id\":\"pay_" + effects.incrementAndGet() + "\"}").build();
        }
      });
      server.start();

      CliRun run = CliRun.of(Clock.systemUTC(), "conformance",
          server.url("/payments").toString(), "--body", "{\"amount\":1,\"currency\":\"EUR\"}");

      assertThat(run.exitCode()).as(run.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
      assertThat(run.out()).contains("RISK: SECOND EFFECT: another successful answer for the same"
          + " key and body", "no replay marker seen");
      assertThat(effects.get()).isLessThanOrEqualTo(15);
      assertThat(run.out()).contains(effects.get() + " test effects created");
    }
  }

  @Test
  void a_body_the_server_refuses_stops_the_run_after_one_request() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse.Builder().code(401).body("{\"error\":\"no token\"}").build());
      server.start();

      CliRun run = CliRun.of(Clock.systemUTC(), "conformance",
          server.url("/payments").toString(), "--body", "{}");

      assertThat(run.exitCode()).isEqualTo(OncelyCli.EXIT_FAILURE);
      assertThat(run.out()).contains("the first request was not accepted", "401");
      assertThat(server.getRequestCount()).isEqualTo(1);
    }
  }

  @Test
  void extra_headers_reach_the_server_and_are_never_printed() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse.Builder().code(403).build());
      server.start();

      CliRun run = CliRun.of(Clock.systemUTC(), "conformance",
          server.url("/payments").toString(), "--body", "{}", "--header",
          "Authorization: Bearer sk_test_secret", "--dialect", "paypal");

      RecordedRequest request = server.takeRequest();
      assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer sk_test_secret");
      assertThat(request.getHeaders().get("PayPal-Request-Id")).startsWith("conformance-");
      assertThat(run.out() + run.err()).doesNotContain("sk_test_secret");
    }
  }

  @Test
  void json_output_lists_every_probe_with_its_verdict_and_the_dialect_code() throws Exception {
    AtomicInteger effects = new AtomicInteger();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(new Dispatcher() {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
          return new MockResponse.Builder().code(201)
              .body("{\"id\":\"pay_" + effects.incrementAndGet() + "\"}").build();
        }
      });
      server.start();

      CliRun run = CliRun.of(Clock.systemUTC(), "conformance",
          server.url("/payments").toString(), "--body", "{\"amount\":1,\"note\":\"x\"}",
          "--json");

      JsonNode json = new ObjectMapper().readTree(run.out());
      assertThat(json.get("findings")).extracting(f -> f.get("probe").asText()).containsExactly(
          "same key twice", "duplicate in flight", "same key, another body", "key order",
          "query string", "key length", "5xx from the handler", "202 replay keeps Location");
      assertThat(json.get("findings").get(0).get("risk").asBoolean()).isTrue();
      assertThat(json.get("effects").asInt()).isEqualTo(effects.get());
      assertThat(json.get("maxEffects").asInt()).isEqualTo(15);
      assertThat(json.get("dialectCode").asText()).startsWith("Dialect dialect = Dialects.custom(");
      assertThat(json.get("builtInDialect").get("name").asText()).isEqualTo("Dialects.ietf()");
      assertThat(json.get("builtInDialect").get("verdict").asText())
          .as("another body got a new effect, not a refusal").isEqualTo("not established");
    }
  }
}
