package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.ServerDialect;
import dev.oncely.server.servlet.EndpointRoutes;
import dev.oncely.server.servlet.IdempotencyFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.tomcat.util.modeler.Registry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The conformance check against the project's own server half: the {@link IdempotencyFilter} in a
 * real Tomcat in front of a payments servlet, in each dialect the server speaks. The report must
 * find the server conforming to the dialect it is set to, name no risk, and count the effects the
 * servlet committed, with none twice under one key.
 */
class ConformanceOncelyServerTest {
  private static final String BODY = "{\"amount\":1200,\"currency\":\"EUR\",\"customer\":\"c-1\"}";
  /** The servlet's test hook: a request with this header gets its value as status, no effect. */
  private static final String HOOK = "X-Oncely-Test-Fail";
  private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

  static {
    TOMCAT_LOG.setLevel(Level.WARNING);
    Registry.disableRegistry();
  }

  @TempDir
  Path baseDir;

  @ParameterizedTest(name = "{0}")
  @EnumSource(ServerDialect.class)
  void the_report_finds_the_server_half_conforming_to_its_dialect(ServerDialect dialect)
      throws Exception {
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

    CliRun run = check(dialect, dialect == ServerDialect.IETF ? "ietf" : "stripe", effects);

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).as(run.toString()).doesNotContain("RISK").contains(
        "replayed byte for byte, marked Idempotent-Replayed: true",
        "insensitive: member order does not change the fingerprint",
        "not part of the fingerprint",
        "64 accepted, 255 accepted, 256 refused (400)",
        "500 -> 201", "re-executed: the key was released after the error",
        ".replayHeader(\"Idempotent-Replayed\")");
    if (dialect == ServerDialect.IETF) {
      assertThat(run.out()).as(run.toString()).contains(
          "mismatch answered 422 {\"type\":\"https://oncely.dev/problems/idempotency-key-reused\"",
          ".quoteKey(true)", ".mismatchStatus(422)",
          "Dialects.ietf() fits: it reads the replay (201) as completed, the mismatch answer"
              + " (422) as a payload mismatch");
    } else {
      assertThat(run.out()).as(run.toString()).contains(
          "mismatch answered 400 {\"error\":{\"type\":\"idempotency_error\"",
          ".quoteKey(false)", "contains(\"idempotency_error\")",
          "Dialects.stripe() fits: it reads the replay (201) as completed, the mismatch answer"
              + " (400) as a payload mismatch");
    }
    if (!run.out().contains("no overlap observed")) {
      assertThat(run.out()).contains("the second got 409 with Retry-After 1",
          "the in-progress answer (409) as in progress", ".inProgressStatus(409)");
    }
    int total = effects.values().stream().mapToInt(AtomicInteger::get).sum();
    assertThat(run.out()).contains(total + " test effects created");
    assertThat(effects.values()).as("no key ran twice").allMatch(n -> n.get() == 1);
  }

  @Test
  void the_ietf_dialect_does_not_fit_the_server_half_set_to_stripe() throws Exception {
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

    CliRun run = check(ServerDialect.STRIPE, "ietf", effects);

    assertThat(run.out()).as(run.toString()).contains("Dialects.ietf() does NOT fit: it reads the"
        + " mismatch answer (400) as REJECTED, not as a payload mismatch; use the code below.",
        "contains(\"idempotency_error\")");
    assertThat(effects.values()).as("no key ran twice").allMatch(n -> n.get() == 1);
  }

  /** Runs the check with {@code --dialect cliDialect} against the server half in {@code dialect}. */
  private CliRun check(ServerDialect dialect, String cliDialect,
      Map<String, AtomicInteger> effects) throws Exception {
    IdempotentEndpoints endpoints = IdempotentEndpoints.builder(
        ReceiptStore.on(new InMemoryIntentStore())).dialect(dialect).build();
    Tomcat tomcat = tomcat(endpoints, new Payments(effects));
    try {
      String url = "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/payments";
      return CliRun.of(Clock.systemUTC(), "conformance", url, "--body", BODY,
          "--dialect", cliDialect, "--server-error-header", HOOK + ": 500");
    } finally {
      endpoints.close();
      tomcat.stop();
      tomcat.destroy();
    }
  }

  /** Tomcat on a free port of 127.0.0.1: the filter serving POST /payments, then the servlet. */
  private Tomcat tomcat(IdempotentEndpoints endpoints, HttpServlet servlet) throws Exception {
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    Connector connector = new Connector("HTTP/1.1");
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    tomcat.getService().addConnector(connector);
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", Files.createDirectories(baseDir.resolve("app"))
        .toString());
    if (context instanceof StandardContext standard) {
      // Its checks for leaked thread locals need --add-opens and only warn.
      standard.setClearReferencesThreadLocals(false);
      standard.setClearReferencesRmiTargets(false);
    }
    Tomcat.addServlet(context, "payments", servlet);
    context.addServletMappingDecoded("/", "payments");
    FilterDef def = new FilterDef();
    def.setFilterName("oncely");
    def.setFilter(new IdempotencyFilter(endpoints, EndpointRoutes.builder()
        .route("POST", "/payments", EndpointPolicy.builder("payments.create").build()).build()));
    context.addFilterDef(def);
    FilterMap map = new FilterMap();
    map.setFilterName("oncely");
    map.addURLPattern("/*");
    context.addFilterMap(map);
    tomcat.start();
    return tomcat;
  }

  /**
   * Creates one payment per request and answers {@code 201} with JSON, a {@code Location} and a
   * cookie; counts the payments per idempotency key. A request with {@value #HOOK} gets that
   * status before any effect.
   */
  private static final class Payments extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient Map<String, AtomicInteger> effects;
    private final AtomicInteger ids = new AtomicInteger();

    Payments(Map<String, AtomicInteger> effects) {
      this.effects = effects;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      byte[] body = request.getInputStream().readAllBytes();
      String fail = request.getHeader(HOOK);
      if (fail != null) {
        response.sendError(Integer.parseInt(fail.trim()));
        return;
      }
      HandlerContext context = IdempotencyFilter.context(request);
      effects.computeIfAbsent(context.receipt().id().key(), k -> new AtomicInteger())
          .incrementAndGet();
      String id = "pay_" + ids.incrementAndGet();
      response.setStatus(201);
      response.setContentType("application/json");
      response.setHeader("Location", "/payments/" + id);
      response.addHeader("Set-Cookie", "session=" + id);
      response.getOutputStream().write(("{\"id\":\"" + id + "\",\"status\":\"succeeded\","
          + "\"bytes\":" + body.length + "}").getBytes(StandardCharsets.UTF_8));
    }
  }
}
