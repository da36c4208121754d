package dev.oncely.server.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.oncely.client.StoredResponse;
import dev.oncely.server.ServerAnswer;
import dev.oncely.server.ServerDialect;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every answer the server half writes itself (not the handler's), by dialect, in one place: IETF
 * answers carry an RFC 9457 problem body ({@code application/problem+json}) whose {@code type}
 * names the case; Stripe answers carry Stripe's {@code {"error":{"type":..,"message":..}}}. No
 * answer repeats a value the client sent (the key, the payload).
 */
public final class DialectAnswers {
  /** The header that marks a replayed answer. */
  public static final String REPLAYED = "Idempotent-Replayed";
  private static final String PROBLEMS = "https://oncely.dev/problems/";
  private static final JsonFactory JSON = new JsonFactory();

  private final ServerDialect dialect;

  /** The answers of {@code dialect}. */
  public DialectAnswers(ServerDialect dialect) {
    this.dialect = dialect;
  }

  /** The stored answer, byte for byte, plus {@code Idempotent-Replayed: true}. */
  public static ServerAnswer replay(StoredResponse stored) {
    Map<String, List<String>> headers = new LinkedHashMap<>(stored.headers());
    headers.put(REPLAYED, List.of("true"));
    return ServerAnswer.of(stored.status(), headers, stored.body());
  }

  /** {@code 400}: the endpoint requires a key and the request has none. */
  public ServerAnswer missingKey() {
    return refusal(400, "idempotency-key-missing", "Idempotency-Key is missing",
        "This operation is idempotent and requires an Idempotency-Key header.",
        "invalid_request_error", null);
  }

  /** {@code 400}: the key header is not a key. */
  public ServerAnswer malformedKey(String problem) {
    return refusal(400, "idempotency-key-malformed", "Idempotency-Key is malformed", problem,
        "invalid_request_error", null);
  }

  /** The mismatch answer: {@code 422} (IETF) or {@code 400 idempotency_error} (Stripe). */
  public ServerAnswer mismatch(Duration retention) {
    String detail = "This Idempotency-Key was used with another payload for this operation;"
        + " a key may be reused only with the same payload (keys are kept "
        + retention.toHours() + " hours). Send a new request with a new key.";
    if (dialect == ServerDialect.STRIPE) {
      return stripe(400, "idempotency_error", "Keys for idempotent requests can only be used"
          + " with the same parameters they were first used with.", null);
    }
    return problem(422, "idempotency-key-reused", "Idempotency-Key is already used", detail,
        null);
  }

  /** {@code 409} + {@code Retry-After}: the first request with this key still runs. */
  public ServerAnswer inProgress(Duration retryAfter) {
    String detail = "A request with this Idempotency-Key is still being processed; retry"
        + " after the time in Retry-After and get its answer.";
    if (dialect == ServerDialect.STRIPE) {
      return stripe(409, "idempotency_error", "There is currently another in-progress request"
          + " using this Idempotent Key (that probably means you submitted twice, and the other"
          + " request is still going through): please retry your request later.", retryAfter);
    }
    return problem(409, "idempotency-key-in-use", "A request is outstanding for this"
        + " Idempotency-Key", detail, retryAfter);
  }

  /**
   * {@code 202} + {@code Retry-After} (+ {@code Location}): the request was accepted and its
   * outcome is not known yet; never run twice.
   */
  public ServerAnswer pending(String statusUrl, Duration retryAfter) {
    String body = "{\"status\":\"pending\",\"detail\":\"The request was accepted; its outcome"
        + " is not known yet. Poll the Location, or repeat the request with the same key.\"}";
    ServerAnswer a = ServerAnswer.json(202, body)
        .withHeader("Retry-After", Long.toString(Math.max(1, retryAfter.toSeconds())));
    return statusUrl == null ? a : a.withHeader("Location", statusUrl);
  }

  /** {@code 413}: the body is larger than the endpoint accepts; nothing was stored or run. */
  public ServerAnswer tooLarge(long limit) {
    return refusal(413, "body-too-large", "Request body too large", "This operation accepts"
        + " bodies of at most " + limit + " bytes.", "invalid_request_error", null);
  }

  /** {@code 400}: the body is not what its headers declare; nothing was stored or run. */
  public ServerAnswer malformedPayload(String problem) {
    return refusal(400, "payload-malformed", "Request body is malformed", problem,
        "invalid_request_error", null);
  }

  /** {@code 400}: the request names no scope the server accepts. */
  public ServerAnswer scopeUnavailable(String problem) {
    return refusal(400, "scope-unavailable", "Request scope is missing", problem,
        "invalid_request_error", null);
  }

  /**
   * {@code 503} + {@code Retry-After}: the receipt store failed before the handler ran; nothing
   * ran, a retry with the same key is safe.
   */
  public ServerAnswer storeUnavailable() {
    return refusal(503, "receipts-unavailable", "Service unavailable", "The request was not"
        + " processed; retry it with the same Idempotency-Key.", "api_error", Duration.ofSeconds(1));
  }

  /** {@code 404}: no receipt in the caller's scope has this status token. */
  public ServerAnswer unknownStatus() {
    return refusal(404, "receipt-unknown", "No such request", "No request in your scope has"
        + " this status URL, or its retention ended.", "invalid_request_error", null);
  }

  /**
   * {@code 409}: the status URL names a request that was released (it failed before any effect);
   * repeat it with its key to run it.
   */
  public ServerAnswer released() {
    return refusal(409, "request-released", "The request did not run to the end", "The request"
        + " failed before any effect was committed; repeat it with the same Idempotency-Key.",
        "api_error", Duration.ofSeconds(1));
  }

  private ServerAnswer refusal(int status, String type, String title, String detail,
      String stripeType, Duration retryAfter) {
    return dialect == ServerDialect.STRIPE ? stripe(status, stripeType, detail, retryAfter)
        : problem(status, type, title, detail, retryAfter);
  }

  private static ServerAnswer problem(int status, String type, String title, String detail,
      Duration retryAfter) {
    byte[] body = json(g -> {
      g.writeStringField("type", PROBLEMS + type);
      g.writeStringField("title", title);
      g.writeNumberField("status", status);
      g.writeStringField("detail", detail);
    });
    return withRetryAfter(ServerAnswer.of(status,
        Map.of("Content-Type", List.of("application/problem+json")), body), retryAfter);
  }

  private static ServerAnswer stripe(int status, String type, String message,
      Duration retryAfter) {
    byte[] body = json(g -> {
      g.writeObjectFieldStart("error");
      g.writeStringField("type", type);
      g.writeStringField("message", message);
      g.writeEndObject();
    });
    return withRetryAfter(ServerAnswer.of(status,
        Map.of("Content-Type", List.of("application/json")), body), retryAfter);
  }

  private static ServerAnswer withRetryAfter(ServerAnswer a, Duration retryAfter) {
    return retryAfter == null ? a
        : a.withHeader("Retry-After", Long.toString(Math.max(1, retryAfter.toSeconds())));
  }

  private interface Fields {
    void write(JsonGenerator g) throws IOException;
  }

  private static byte[] json(Fields fields) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      fields.write(g);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
