package dev.oncely.examples.server;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;

/**
 * Parses request bodies and fingerprints them: SHA-256 over a normalized form in which object
 * keys are sorted, blanks are dropped and numbers are written without trailing zeros, so
 * {@code {"b":1.0,"a":2}} and {@code {"a":2, "b":1}} have the same fingerprint.
 */
final class JsonBodies {
  static final ObjectMapper MAPPER =
      new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private JsonBodies() {}

  /** Returns the body as a JSON object, or throws with a message safe to show the client. */
  static ObjectNode parseObject(byte[] body) throws InvalidBodyException {
    JsonNode node;
    try {
      node = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw new InvalidBodyException("body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new InvalidBodyException("body could not be read as JSON");
    }
    if (node == null || !node.isObject()) {
      throw new InvalidBodyException("body must be a JSON object");
    }
    return (ObjectNode) node;
  }

  /** Lower-case hex SHA-256 of the normalized form of {@code node}. */
  static String fingerprint(JsonNode node) {
    StringBuilder out = new StringBuilder();
    normalize(node, out);
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(out.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  private static void normalize(JsonNode node, StringBuilder out) {
    if (node.isObject()) {
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      names.sort(null);
      out.append('{');
      for (int i = 0; i < names.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        out.append(quote(names.get(i))).append(':');
        normalize(node.get(names.get(i)), out);
      }
      out.append('}');
    } else if (node.isArray()) {
      out.append('[');
      Iterator<JsonNode> it = node.elements();
      while (it.hasNext()) {
        normalize(it.next(), out);
        if (it.hasNext()) {
          out.append(',');
        }
      }
      out.append(']');
    } else if (node.isNumber()) {
      BigDecimal n = node.decimalValue();
      out.append(n.signum() == 0 ? "0" : n.stripTrailingZeros().toPlainString());
    } else if (node.isTextual()) {
      out.append(quote(node.textValue()));
    } else {
      out.append(node.toString());
    }
  }

  private static String quote(String s) {
    try {
      return MAPPER.writeValueAsString(s);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a Java string always serializes", e);
    }
  }

  /** Serializes a tree the server built itself. */
  static byte[] bytes(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a tree built by the server always serializes", e);
    }
  }

  /** A request body the server cannot use; the message is safe to send back. */
  static final class InvalidBodyException extends Exception {
    InvalidBodyException(String message) {
      super(message);
    }
  }
}
