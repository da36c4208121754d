package dev.oncely.examples.shop;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.server.ServerAnswer;
import dev.oncely.server.ServerDialect;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Every answer the shop writes itself, in one place and one shape: a payment ({@code 201} with
 * {@code Location}, or {@code 200}), the shop's refusals in the dialect's error format (IETF: an
 * RFC 9457 problem; Stripe: {@code {"error":{"type":..,"message":..}}}), and the {@code 202} of a
 * payment whose provider charge is still unknown. The handler and the {@link PaymentRecovery}
 * render a payment through the same method, so a recovered answer has the bytes the handler would
 * have stored. No answer repeats a value the client sent but the payment's own fields. Immutable.
 */
final class PaymentAnswers {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PROBLEMS = "https://oncely.dev/problems/shop/";

  private final ServerDialect dialect;

  PaymentAnswers(ServerDialect dialect) {
    this.dialect = dialect;
  }

  /** {@code 201} + {@code Location: /payments/{id}} + the payment. */
  ServerAnswer created(Payment p) {
    return ServerAnswer.json(201, json(p)).withHeader("Location", p.location());
  }

  /** {@code 200} + the payment ({@code GET /payments/{id}}). */
  ServerAnswer found(Payment p) {
    return ServerAnswer.json(200, json(p));
  }

  /** {@code 400}: the payment breaks a business rule; stored and replayed. */
  ServerAnswer refused(PaymentRequest.Invalid invalid) {
    return error(400, "payment-invalid", "The payment is invalid", invalid.message(),
        "invalid_request_error", invalid.param());
  }

  /**
   * {@code 422}: the key already paid for another payment (its receipt's retention ended and the
   * key came back with another body); stored and replayed, no payment made.
   */
  ServerAnswer keyReused() {
    return error(422, "key-reused-after-retention", "The key already made another payment",
        "This Idempotency-Key made a payment with other details before its receipt's retention"
        + " ended; use a new key for a new payment.", "idempotency_error", null);
  }

  /** {@code 402}: the provider refused the charge; stored and replayed, no payment made. */
  ServerAnswer declined(int providerStatus) {
    return error(402, "charge-declined", "The charge was declined", "The payment provider"
        + " refused the charge (" + providerStatus + "); no payment was made.", "card_error",
        null);
  }

  /**
   * {@code 202}: the provider charge's outcome is unknown; the core adds the status URL and
   * {@code Retry-After}, and the receipt stays pending until a repeat finds the outcome.
   */
  ServerAnswer pending() {
    return ServerAnswer.json(202, "{\"status\":\"pending\",\"detail\":\"The charge was sent to"
        + " the payment provider and its outcome is not known yet. Poll the Location, or repeat"
        + " the request with the same Idempotency-Key.\"}");
  }

  /** {@code 404}. */
  ServerAnswer notFound(String what) {
    return error(404, "not-found", "Not found", what, "invalid_request_error", null);
  }

  /** {@code 405} + {@code Allow}. */
  ServerAnswer methodNotAllowed(String allow) {
    return error(405, "method-not-allowed", "Method not allowed", "Allowed: " + allow,
        "invalid_request_error", null).withHeader("Allow", allow);
  }

  /** {@code 409}: the reset was refused because requests are unfinished. */
  ServerAnswer resetRefused(String why) {
    return error(409, "reset-refused", "Reset refused", why, "invalid_request_error", null);
  }

  /** A JSON answer with {@code status} and {@code body}. */
  static ServerAnswer json(int status, String body) {
    return ServerAnswer.json(status, body);
  }

  /** Writes {@code answer} to {@code response} as it is: status, headers, exact body bytes. */
  static void write(ServerAnswer answer, HttpServletResponse response) throws IOException {
    response.setStatus(answer.status());
    for (Map.Entry<String, List<String>> e : answer.headers().entrySet()) {
      for (String v : e.getValue()) {
        response.addHeader(e.getKey(), v);
      }
    }
    byte[] body = answer.body();
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  private static String json(Payment p) {
    ObjectNode n = JSON.createObjectNode();
    n.put("id", p.id());
    n.put("object", "payment");
    n.put("status", "succeeded");
    n.put("amount", p.amount());
    n.put("currency", p.currency());
    if (p.order() != null) {
      n.put("order", p.order());
    }
    if (p.customer() != null) {
      n.put("customer", p.customer());
    }
    if (p.providerCharge() != null) {
      n.put("provider_charge", p.providerCharge());
    }
    n.put("created", p.createdAt().getEpochSecond());
    return n.toString();
  }

  private ServerAnswer error(int status, String type, String title, String detail,
      String stripeType, String param) {
    ObjectNode root = JSON.createObjectNode();
    if (dialect == ServerDialect.STRIPE) {
      ObjectNode e = root.putObject("error");
      e.put("type", stripeType);
      if (param != null) {
        e.put("param", param);
      }
      e.put("message", detail);
      return ServerAnswer.json(status, root.toString());
    }
    root.put("type", PROBLEMS + type);
    root.put("title", title);
    root.put("status", status);
    root.put("detail", detail);
    return ServerAnswer.of(status, Map.of("Content-Type", List.of("application/problem+json")),
        root.toString().getBytes(StandardCharsets.UTF_8));
  }
}
