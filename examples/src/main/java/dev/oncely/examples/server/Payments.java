package dev.oncely.examples.server;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import java.io.IOException;

/**
 * The payments API's own parts, which the testing kit's server is configured with: what a valid
 * body is, the business rule on the amount, and a payment's JSON. Everything about keys, records
 * and replays is the kit's. Stateless and thread-safe.
 */
final class Payments {
  static final ObjectMapper MAPPER =
      new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private Payments() {}

  /** Why {@code body} is not a JSON object (a message safe to send back), or null if it is one. */
  static String invalidBody(byte[] body) {
    try {
      JsonNode node = MAPPER.readTree(body);
      return node != null && node.isObject() ? null : "body must be a JSON object";
    } catch (JsonProcessingException e) {
      return "body is not valid JSON: " + e.getOriginalMessage();
    } catch (IOException e) {
      return "body could not be read as JSON";
    }
  }

  /** The business refusal of a payment request, or null to accept it. */
  static String refusal(ReceivedRequest r) {
    JsonNode amount = parse(r).get("amount");
    if (amount == null || !amount.canConvertToExactIntegral() || !amount.canConvertToLong()
        || amount.longValue() <= 0) {
      return "amount must be a positive integer";
    }
    return null;
  }

  /** The payment a committed effect created, as JSON. */
  static String json(IdempotentServer.Committed c) {
    ObjectNode request = parse(c.request());
    ObjectNode payment = MAPPER.createObjectNode();
    payment.put("id", c.id());
    payment.put("status", "succeeded");
    payment.put("amount", request.get("amount").longValue());
    for (String field : new String[] {"currency", "customer", "order"}) {
      JsonNode v = request.get(field);
      if (v != null && v.isTextual()) {
        payment.put(field, v.textValue());
      }
    }
    return payment.toString();
  }

  /** The body of a request {@link #invalidBody} accepted. */
  private static ObjectNode parse(ReceivedRequest r) {
    try {
      return (ObjectNode) MAPPER.readTree(r.body());
    } catch (IOException e) {
      throw new IllegalStateException("the body was validated before the kit saw it", e);
    }
  }
}
