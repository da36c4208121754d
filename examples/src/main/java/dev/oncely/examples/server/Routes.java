package dev.oncely.examples.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.testing.IdempotentServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;

/**
 * The reference server's routing in front of the kit: {@code GET /stats}, the payments paths
 * (after the bearer token check when one is required, the plan's latency and a check that a {@code
 * POST} body is a JSON object) to the kit, {@code 404} elsewhere. Thread-safe.
 */
final class Routes extends Dispatcher {
  static final String COLLECTION = "/payments";
  private static final String JSON = "application/json";

  private final MockWebServer web;
  private final IdempotentServer kit;
  private final ServerDialect dialect;
  private final Supplier<FaultPlan> plan;
  private final Supplier<ServerStats> stats;
  /** The {@code Authorization} value a payments request must carry, or null for none. */
  private final String authorization;
  private final LongAdder delayed = new LongAdder();
  private final LongAdder invalidBodies = new LongAdder();

  Routes(MockWebServer web, IdempotentServer kit, ServerDialect dialect, Supplier<FaultPlan> plan,
      Supplier<ServerStats> stats, String bearerToken) {
    this.web = web;
    this.kit = kit;
    this.dialect = dialect;
    this.plan = plan;
    this.stats = stats;
    this.authorization = bearerToken == null ? null : "Bearer " + bearerToken;
  }

  /** Requests delayed by the plan's latency so far. */
  long delayed() {
    return delayed.sum();
  }

  /** {@code POST /payments} answered 400 here because the body was not a JSON object. */
  long invalidBodies() {
    return invalidBodies.sum();
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
    try {
      return route(request);
    } finally {
      // MockWebServer queues every request for takeRequest(); nobody takes them here, and a
      // long-running server must not keep them all.
      RecordedRequest queued;
      do {
        queued = web.takeRequest(0, TimeUnit.NANOSECONDS);
      } while (queued != null);
    }
  }

  private MockResponse route(RecordedRequest request) throws InterruptedException {
    String path = request.getUrl().encodedPath();
    String method = request.getMethod();
    if (path.equals("/stats")) {
      return method.equals("GET") ? answer(200, JSON, stats.get().toJson())
          : error(405, "method_not_allowed", "Method not allowed", "allowed: GET")
              .newBuilder().setHeader("Allow", "GET").build();
    }
    boolean collection = path.equals(COLLECTION);
    if (!collection && !path.startsWith(COLLECTION + "/")) {
      return error(404, "resource_missing", "Not found", "no resource at this path");
    }
    if (collection ? !method.equals("POST") : !method.equals("GET")) {
      String allow = collection ? "POST" : "GET";
      return error(405, "method_not_allowed", "Method not allowed", "allowed: " + allow)
          .newBuilder().setHeader("Allow", allow).build();
    }
    if (authorization != null
        && !authorization.equals(request.getHeaders().get("Authorization"))) {
      return error(401, "unauthorized", "Unauthorized", "a valid bearer token is required")
          .newBuilder().setHeader("WWW-Authenticate", "Bearer").build();
    }
    Duration latency = plan.get().latency();
    if (!latency.isZero()) {
      delayed.increment();
      Thread.sleep(latency.toMillis());
    }
    if (collection) {
      byte[] body = request.getBody() == null ? new byte[0] : request.getBody().toByteArray();
      String problem = body.length > ReferenceServer.MAX_BODY_BYTES ? null
          : Payments.invalidBody(body);
      if (problem != null) {
        invalidBodies.increment();
        return error(400, "body_invalid", "Request body is invalid", problem);
      }
    }
    return kit.dispatch(request);
  }

  @Override
  public void close() {
    kit.close();
  }

  private MockResponse error(int status, String code, String title, String detail) {
    ObjectNode root = Payments.MAPPER.createObjectNode();
    if (dialect == ServerDialect.STRIPE) {
      ObjectNode error = root.putObject("error");
      error.put("type", "invalid_request_error");
      error.put("code", code);
      error.put("message", title + ": " + detail);
      return answer(status, JSON, root.toString());
    }
    root.put("type", "about:blank");
    root.put("title", title);
    root.put("status", status);
    root.put("detail", detail);
    return answer(status, "application/problem+json", root.toString());
  }

  private static MockResponse answer(int status, String contentType, String body) {
    return new MockResponse.Builder().code(status).setHeader("Content-Type", contentType)
        .body(body).build();
  }
}
