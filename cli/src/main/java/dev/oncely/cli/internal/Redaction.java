package dev.oncely.cli.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * How header values and bodies of a stored record are printed: as {@value #REDACTED} unless the
 * operator asked to {@code --reveal} them (a header or a body can hold an order id, a card number
 * or a signed token); and the two line formats every {@code show} uses.
 */
final class Redaction {
  static final String REDACTED = "<redacted>";

  private final boolean reveal;

  Redaction(boolean reveal) {
    this.reveal = reveal;
  }

  boolean reveals() {
    return reveal;
  }

  /** {@code value}, or {@value #REDACTED}. */
  String value(String value) {
    return value == null || reveal ? value : REDACTED;
  }

  void printHeaders(PrintWriter out, String indent, Map<String, List<String>> headers) {
    headers.forEach((name, values) -> {
      for (String value : values) {
        out.println(indent + name + ": " + (reveal ? value : REDACTED));
      }
    });
  }

  ObjectNode headersJson(Map<String, List<String>> headers) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    headers.forEach((name, values) -> {
      ArrayNode array = o.putArray(name);
      values.forEach(v -> array.add(reveal ? v : REDACTED));
    });
    return o;
  }

  ObjectNode bodyJson(byte[] body, String mediaType) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("bytes", body.length);
    o.put("mediaType", mediaType);
    if (reveal) {
      String text = utf8(body);
      if (text != null) {
        o.put("text", text);
      } else {
        o.put("base64", Base64.getEncoder().encodeToString(body));
      }
    }
    return o;
  }

  String bodyText(byte[] body, String mediaType) {
    String type = mediaType == null ? "" : ", " + mediaType;
    if (!reveal) {
      return body.length + " bytes" + type + " " + REDACTED + " (--reveal prints it)";
    }
    String text = utf8(body);
    return body.length + " bytes" + type + ": "
        + (text != null ? text : "base64 " + Base64.getEncoder().encodeToString(body));
  }

  /** One {@code label: value} line of a {@code show}. */
  static void line(PrintWriter out, String label, String value) {
    out.printf("%-16s %s%n", label + ":", value == null ? "-" : value);
  }

  /** An instant as {@code show} prints it, to the second. */
  static Instant seconds(Instant instant) {
    return instant.truncatedTo(ChronoUnit.SECONDS);
  }

  private static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
