package dev.oncely.spring.boot.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.micrometer.OncelyServerMetrics;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.ReceiptStore;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.nio.file.Path;
import java.security.Principal;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The server half in a real Boot application on embedded Tomcat, asked over HTTP with OkHttp: a
 * {@code @RestController} whose {@code @PostMapping} carries {@link IdempotentEndpoint} counts its
 * effects. One key gives one effect and a replay; another payload under it is refused; the
 * dialect and the scope come from properties; the filter runs after authentication; a pending
 * handler's status URL is served; metrics and health see the receipts; a bad property or route
 * stops the start with Boot's report.
 */
@ExtendWith(OutputCaptureExtension.class)
class ServerEndpointsBootTest {
  private static final MediaType JSON = MediaType.get("application/json");

  @TempDir
  static Path sharedDir;

  @TempDir
  Path dir;

  /** The application with the default properties, shared by the tests that need no others. */
  private static ConfigurableApplicationContext shared;

  private final OkHttpClient http = new OkHttpClient();
  /** The application the test asks: the shared one, or one of its own (closed after it). */
  private ConfigurableApplicationContext app;
  private boolean own;

  /** A Boot application of its own: auto-configuration, no component scan. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {}

  @RestController
  static class Payments {
    final AtomicInteger effects = new AtomicInteger();
    final AtomicInteger failuresLeft = new AtomicInteger();

    @PostMapping("/payments")
    @IdempotentEndpoint(operation = "payments.create")
    ResponseEntity<Map<String, Object>> create(@RequestBody Map<String, Object> payment) {
      if (failuresLeft.getAndDecrement() > 0) {
        throw new IllegalStateException("the database is away");
      }
      String id = "pay_" + effects.incrementAndGet();
      return ResponseEntity.status(201).header("Location", "/payments/" + id)
          .body(Map.of("id", id, "amount", payment.get("amount")));
    }

    @PostMapping("/payments/{id}/capture")
    @IdempotentEndpoint(operation = "payments.capture")
    ResponseEntity<String> capture(@PathVariable String id, HandlerContext receipt) {
      effects.incrementAndGet();
      receipt.pending("capture-" + id, "the acquirer has not answered");
      return ResponseEntity.status(202).body("{\"status\":\"processing\"}");
    }
  }

  /** Not annotated: routed by the oncely.server.endpoints properties when a test sets them. */
  @RestController
  static class Orders {
    final AtomicInteger effects = new AtomicInteger();

    @PostMapping("/orders")
    ResponseEntity<String> place() {
      return ResponseEntity.status(201).body("{\"order\":" + effects.incrementAndGet() + "}");
    }
  }

  /**
   * Where Spring Security's filter chain sits ({@code -100}), an "authentication" that takes the
   * principal from {@code X-User}.
   */
  static class Authentication {
    @Bean
    FilterRegistrationBean<Filter> authentication() {
      FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(
          (request, response, chain) -> {
            String user = ((HttpServletRequest) request).getHeader("X-User");
            chain.doFilter(user == null ? request
                : new HttpServletRequestWrapper((HttpServletRequest) request) {
                  @Override
                  public Principal getUserPrincipal() {
                    return () -> user;
                  }
                }, response);
          });
      registration.setOrder(OncelyServerAutoConfiguration.SECURITY_DEFAULT_ORDER);
      return registration;
    }
  }

  /**
   * Starts an application on a random port: receipts in a MapDB file (the default engine), the
   * client's intents in memory (not the subject here).
   */
  private static ConfigurableApplicationContext run(Path dir, Class<?>[] sources,
      String... properties) {
    return new SpringApplicationBuilder(sources)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "oncely.server.enabled=true",
            "oncely.server.store.path=" + dir.resolve("receipts.db"),
            "oncely.store.engine=memory", "oncely.due-work.enabled=false",
            "oncely.resume-on-startup=false")
        .properties(properties).run();
  }

  private ConfigurableApplicationContext start(Class<?>[] sources, String... properties) {
    own = true;
    app = null;
    app = run(dir, sources, properties);
    return app;
  }

  private ConfigurableApplicationContext startPayments(String... properties) {
    return start(new Class<?>[] {App.class, Payments.class}, properties);
  }

  /** The shared application with the default properties. */
  private void useShared() {
    if (shared == null) {
      shared = run(sharedDir, new Class<?>[] {App.class, Payments.class});
    }
    app = shared;
  }

  @AfterEach
  void stop() {
    if (own && app != null) {
      app.close();
    }
  }

  @AfterAll
  static void stopShared() {
    if (shared != null) {
      shared.close();
    }
  }

  private int port() {
    return ((WebServerApplicationContext) app).getWebServer().getPort();
  }

  /** An answer as the client saw it. */
  record Answer(int status, String body, String contentType, String replayed, String location) {}

  private Answer post(String path, String json, String... headers) throws IOException {
    Request.Builder request = new Request.Builder().url("http://127.0.0.1:" + port() + path)
        .post(okhttp3.RequestBody.create(json, JSON));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return call(request.build());
  }

  private Answer get(String path) throws IOException {
    return call(new Request.Builder().url("http://127.0.0.1:" + port() + path).get().build());
  }

  private Answer call(Request request) throws IOException {
    try (Response response = http.newCall(request).execute()) {
      return new Answer(response.code(), response.body().string(),
          response.header("Content-Type"), response.header("Idempotent-Replayed"),
          response.header("Location"));
    }
  }

  private int effects() {
    return app.getBean(Payments.class).effects.get();
  }

  @Test
  void two_requests_with_one_key_run_the_handler_once_and_the_repeat_is_the_stored_answer()
      throws Exception {
    useShared();
    int before = effects();

    Answer first = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"once-1\"");
    Answer repeat = post("/payments", "{ \"amount\" : 1000 }", "Idempotency-Key",
        "\"once-1\"");

    assertThat(effects() - before).isEqualTo(1);
    assertThat(first.status()).isEqualTo(201);
    assertThat(first.replayed()).isNull();
    assertThat(first.location()).startsWith("/payments/pay_");
    assertThat(repeat).isEqualTo(new Answer(201, first.body(), first.contentType(), "true",
        first.location()));
  }

  @Test
  void another_payload_under_the_key_is_refused_with_422_and_the_first_answer_stays()
      throws Exception {
    useShared();
    int before = effects();
    Answer first = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"mismatch-1\"");

    Answer changed = post("/payments", "{\"amount\":9999}", "Idempotency-Key",
        "\"mismatch-1\"");
    Answer repeat = post("/payments", "{\"amount\":1000}", "Idempotency-Key",
        "\"mismatch-1\"");

    assertThat(changed.status()).isEqualTo(422);
    assertThat(changed.contentType()).startsWith("application/problem+json");
    assertThat(changed.body()).doesNotContain("9999").doesNotContain("mismatch-1");
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(effects() - before).isEqualTo(1);
  }

  @Test
  void a_request_without_a_key_is_refused_with_400_before_the_handler() throws Exception {
    useShared();
    int before = effects();

    Answer missing = post("/payments", "{\"amount\":1000}");

    assertThat(missing.status()).isEqualTo(400);
    assertThat(effects()).isEqualTo(before);
  }

  @Test
  void a_handler_that_throws_gives_the_key_back_and_the_retry_runs_it() throws Exception {
    useShared();
    int before = effects();
    app.getBean(Payments.class).failuresLeft.set(1);

    Answer failed = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"throws-1\"");
    Answer retry = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"throws-1\"");

    assertThat(failed.status()).isEqualTo(500);
    assertThat(retry.status()).isEqualTo(201);
    assertThat(retry.replayed()).isNull();
    assertThat(effects() - before).isEqualTo(1);
  }

  @Test
  void the_stripe_dialect_by_property_reads_raw_keys_and_refuses_a_mismatch_with_400()
      throws Exception {
    startPayments("oncely.server.dialect=stripe");

    Answer first = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "k-1");
    Answer repeat = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "k-1");
    Answer changed = post("/payments", "{\"amount\":5}", "Idempotency-Key", "k-1");

    assertThat(first.status()).isEqualTo(201);
    assertThat(repeat.replayed()).isEqualTo("true");
    assertThat(changed.status()).isEqualTo(400);
    assertThat(changed.body()).contains("\"type\":\"idempotency_error\"");
    assertThat(effects()).isEqualTo(1);
  }

  @Test
  void scope_by_a_header_property_keeps_two_tenants_with_one_key_apart() throws Exception {
    startPayments("oncely.server.scope=header:X-Tenant-Id");

    Answer tenantA = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"",
        "X-Tenant-Id", "tenant-a");
    Answer tenantB = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"",
        "X-Tenant-Id", "tenant-b");
    Answer noTenant = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"");

    assertThat(effects()).isEqualTo(2);
    assertThat(tenantB.replayed()).isNull();
    assertThat(tenantB.body()).isNotEqualTo(tenantA.body());
    assertThat(noTenant.status()).isEqualTo(400);
  }

  @Test
  void the_filter_runs_after_authentication_so_each_principal_is_its_own_scope()
      throws Exception {
    start(new Class<?>[] {App.class, Payments.class, Authentication.class});

    Answer alice = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"",
        "X-User", "alice");
    Answer bob = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"",
        "X-User", "bob");
    Answer aliceAgain = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"",
        "X-User", "alice");

    assertThat(effects()).isEqualTo(2);
    assertThat(bob.replayed()).isNull();
    assertThat(bob.body()).isNotEqualTo(alice.body());
    assertThat(aliceAgain.body()).isEqualTo(alice.body());
    assertThat(aliceAgain.replayed()).isEqualTo("true");
  }

  @Test
  void ordered_before_authentication_every_caller_would_share_the_anonymous_scope()
      throws Exception {
    start(new Class<?>[] {App.class, Payments.class, Authentication.class},
        "oncely.server.filter-order=-200");

    Answer alice = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"",
        "X-User", "alice");
    Answer bob = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"",
        "X-User", "bob");

    // What the default order prevents: bob gets alice's answer.
    assertThat(effects()).isEqualTo(1);
    assertThat(bob.replayed()).isEqualTo("true");
    assertThat(bob.body()).isEqualTo(alice.body());
  }

  @Test
  void a_pending_handler_answers_202_with_a_status_url_the_filter_serves() throws Exception {
    useShared();
    int before = effects();

    Answer first = post("/payments/p-1/capture", "{}", "Idempotency-Key", "\"pending-1\"");
    Answer repeat = post("/payments/p-1/capture", "{}", "Idempotency-Key", "\"pending-1\"");
    Answer status = get(first.location());

    assertThat(first.status()).isEqualTo(202);
    assertThat(first.location()).startsWith("/oncely/receipts/payments.capture/")
        .doesNotContain("pending-1");
    assertThat(repeat.status()).isEqualTo(202);
    assertThat(repeat.location()).isEqualTo(first.location());
    assertThat(status.status()).isEqualTo(202);
    assertThat(effects() - before).isEqualTo(1);
  }

  @Test
  void the_property_route_table_protects_a_handler_without_the_annotation() throws Exception {
    start(new Class<?>[] {App.class, Orders.class},
        "oncely.server.endpoints[orders.place].path=/orders");

    Answer first = post("/orders", "{\"sku\":\"a\"}", "Idempotency-Key", "\"k-1\"");
    Answer repeat = post("/orders", "{\"sku\":\"a\"}", "Idempotency-Key", "\"k-1\"");

    assertThat(app.getBean(Orders.class).effects).hasValue(1);
    assertThat(repeat.replayed()).isEqualTo("true");
    assertThat(repeat.body()).isEqualTo(first.body());
  }

  @Test
  void metrics_count_the_replay_and_the_mismatch_under_the_operation() throws Exception {
    startPayments();

    post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"");
    post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"");
    post("/payments", "{\"amount\":7}", "Idempotency-Key", "\"k-1\"");
    post("/payments/p-1/capture", "{}", "Idempotency-Key", "\"k-2\"");

    MeterRegistry registry = app.getBean(MeterRegistry.class);
    assertThat(app).isNotNull();
    assertThat(registry.get(OncelyServerMetrics.RECEIPTS).tag("kind", "replayed")
        .tag("operation", "payments.create").counter().count()).isEqualTo(1);
    assertThat(registry.get(OncelyServerMetrics.RECEIPTS).tag("kind", "mismatch")
        .tag("operation", "payments.create").counter().count()).isEqualTo(1);
    assertThat(registry.get(OncelyServerMetrics.RECEIPTS).tag("kind", "completed")
        .tag("operation", "payments.create").counter().count()).isEqualTo(1);
    assertThat(registry.get(OncelyServerMetrics.UNFINISHED).tag("state", "pending").gauge()
        .value()).isEqualTo(1);
  }

  @Test
  void health_is_up_with_the_pending_receipts_and_down_once_the_receipt_store_is_closed()
      throws Exception {
    startPayments();
    post("/payments/p-1/capture", "{}", "Idempotency-Key", "\"k-1\"");
    HealthIndicator indicator = app.getBean("oncelyServerHealthIndicator",
        HealthIndicator.class);

    Health up = indicator.health();
    app.getBean(ReceiptStore.class).close();
    Health down = indicator.health();

    assertThat(up.getStatus()).isEqualTo(Status.UP);
    assertThat(up.getDetails()).containsEntry("pending", 1).containsEntry("processing", 0);
    assertThat(down.getStatus()).isEqualTo(Status.DOWN);
    assertThat(down.getDetails()).containsKey("error");
  }

  @Test
  void without_oncely_server_enabled_the_same_app_runs_every_request_unprotected()
      throws Exception {
    startPayments("oncely.server.enabled=false");

    post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"");
    Answer repeat = post("/payments", "{\"amount\":1000}", "Idempotency-Key", "\"k-1\"");

    assertThat(effects()).isEqualTo(2);
    assertThat(repeat.replayed()).isNull();
    assertThat(app.getBeanNamesForType(ReceiptStore.class)).isEmpty();
  }

  @Test
  void a_bad_property_prints_application_failed_to_start_naming_it(CapturedOutput output) {
    try {
      startPayments("oncely.server.scope=tenant");
    } catch (RuntimeException expected) {
      app = null;
    }

    assertThat(app).isNull();
    assertThat(output.toString()).contains("APPLICATION FAILED TO START")
        .contains("oncely.server.scope must be principal or header:<Name>, was tenant")
        .contains("Change oncely.server.scope");
  }

  @RestController
  static class UnroutableEndpoint {
    @PostMapping("/payments/{id:\\d+}")
    @IdempotentEndpoint(operation = "payments.update")
    String update(@PathVariable String id) {
      return "updated";
    }
  }

  @Test
  void an_unroutable_endpoint_prints_application_failed_to_start_naming_the_method(
      CapturedOutput output) {
    try {
      start(new Class<?>[] {App.class, UnroutableEndpoint.class});
    } catch (RuntimeException expected) {
      app = null;
    }

    assertThat(app).isNull();
    assertThat(output.toString()).contains("APPLICATION FAILED TO START")
        .contains("Oncely could not route the idempotent endpoints: @IdempotentEndpoint on"
            + " UnroutableEndpoint#update is mapped to /payments/{id:\\d+}")
        .contains("Change @IdempotentEndpoint on UnroutableEndpoint#update");
  }
}
