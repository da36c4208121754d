package dev.oncely.examples.server;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Error answers in the server's dialect: {@code application/problem+json} (RFC 9457) for IETF,
 * Stripe's {@code {"error":{"type":..,"code":..,"message":..}}} for Stripe. Messages never echo
 * the key or the payload.
 */
final class ErrorReplies {
  private final ServerDialect dialect;
  private final String retryAfter;

  ErrorReplies(ServerDialect dialect, int retryAfterSeconds) {
    this.dialect = dialect;
    this.retryAfter = Integer.toString(retryAfterSeconds);
  }

  String retryAfter() {
    return retryAfter;
  }

  Reply missingKey() {
    return error(400, "invalid_request_error", "idempotency_key_missing",
        "Idempotency-Key is missing",
        "POST /payments requires an Idempotency-Key header, e.g. Idempotency-Key: \"<uuid>\"");
  }

  Reply malformedKey(String detail) {
    return error(400, "invalid_request_error", "idempotency_key_malformed",
        "Idempotency-Key is malformed", detail);
  }

  Reply invalidBody(String detail) {
    return error(400, "invalid_request_error", "body_invalid", "Request body is invalid", detail);
  }

  Reply tooLarge(int limit) {
    return error(413, "invalid_request_error", "body_too_large", "Request body is too large",
        "the limit is " + limit + " bytes");
  }

  /** A business refusal; it is stored and replayed like a success. */
  Reply rejected(String detail) {
    return error(400, "invalid_request_error", "payment_invalid", "Payment refused", detail);
  }

  Reply mismatch() {
    int status = dialect == ServerDialect.STRIPE ? 400 : 422;
    return error(status, "idempotency_error", "idempotency_key_reused",
        "Idempotency-Key is already used",
        "this key was used with another payload; a changed request needs a new key");
  }

  Reply inProgress(String location) {
    Reply r = error(409, "idempotency_error", "idempotency_key_in_use",
        "A request is outstanding for this Idempotency-Key",
        "the first request with this key is still processing; retry later with the same key")
        .withHeader("Retry-After", retryAfter);
    return location == null ? r : r.withHeader("Location", location);
  }

  Reply unavailable() {
    return error(503, "api_error", "service_unavailable", "Service unavailable",
        "injected 503 burst; retry after the Retry-After delay")
        .withHeader("Retry-After", retryAfter);
  }

  Reply internal() {
    return error(500, "api_error", "internal_error", "Internal server error",
        "the reference server failed unexpectedly; nothing was stored for this request");
  }

  Reply notFound(String what) {
    return error(404, "invalid_request_error", "resource_missing", "Not found", what);
  }

  Reply methodNotAllowed(String allow) {
    return error(405, "invalid_request_error", "method_not_allowed", "Method not allowed",
        "allowed: " + allow).withHeader("Allow", allow);
  }

  private Reply error(int status, String type, String code, String title, String detail) {
    ObjectNode root = JsonBodies.MAPPER.createObjectNode();
    if (dialect == ServerDialect.STRIPE) {
      ObjectNode error = root.putObject("error");
      error.put("type", type);
      error.put("code", code);
      error.put("message", title + ": " + detail);
      return Reply.of(status, Reply.JSON, JsonBodies.bytes(root));
    }
    root.put("type", "about:blank");
    root.put("title", title);
    root.put("status", status);
    root.put("detail", detail);
    return Reply.of(status, Reply.PROBLEM_JSON, JsonBodies.bytes(root));
  }
}
