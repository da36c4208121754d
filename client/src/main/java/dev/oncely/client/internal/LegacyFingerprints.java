package dev.oncely.client.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Fingerprints as written before version 2 (no prefix), recomputed so that a record stored by an
 * older release still matches a resubmit of the same payload. The JSON form is the one
 * jackson-databind's tree produced: keys sorted, compact JSON text, integers as written, other
 * numbers with trailing zeros stripped ({@code 1000.0} became {@code 1E+3}, unlike {@code 1000}).
 * Only used for comparison, never for new records; speed does not matter here.
 */
final class LegacyFingerprints {
  private static final Object NULL = new Object();

  private LegacyFingerprints() {}

  /** The pre-version-2 JSON fingerprint. */
  static String ofJson(byte[] json, VolatileFields volatileFields) throws IOException {
    Object tree;
    try (JsonParser parser = CanonicalJson.FACTORY.createParser(json)) {
      JsonToken root = parser.nextToken();
      if (root == null) {
        throw new IOException("empty JSON body");
      }
      tree = read(parser, root, volatileFields);
      if (parser.nextToken() != null) {
        throw new IOException("trailing content after the JSON value");
      }
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IOException("JSON number out of range", e);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(json.length);
    try (JsonGenerator gen = CanonicalJson.FACTORY.createGenerator(out)) {
      write(tree, gen);
    }
    return Fingerprints.sha256Hex(out.toByteArray());
  }

  /** The pre-version-2 fingerprint of a non-JSON body: media type, a zero byte, the bytes. */
  static String ofBytes(byte[] body, String mediaType) {
    byte[] type = (mediaType == null ? "" : mediaType.trim().toLowerCase(Locale.ROOT))
        .getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[type.length + 1 + body.length];
    System.arraycopy(type, 0, all, 0, type.length);
    System.arraycopy(body, 0, all, type.length + 1, body.length);
    return Fingerprints.sha256Hex(all);
  }

  private static Object read(JsonParser parser, JsonToken token, VolatileFields fields)
      throws IOException {
    switch (token) {
      case START_OBJECT: {
        Map<String, Object> members = new LinkedHashMap<>();
        for (JsonToken t = parser.nextToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
          String name = parser.currentName();
          JsonToken valueToken = parser.nextToken();
          if (fields.removes(name)) {
            parser.skipChildren();
          } else {
            members.put(name, read(parser, valueToken, fields.member(name)));
          }
        }
        return members;
      }
      case START_ARRAY: {
        List<Object> elements = new ArrayList<>();
        int index = 0;
        for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
          elements.add(read(parser, t, fields.element(index++)));
        }
        return elements;
      }
      case VALUE_STRING:
        return parser.getText();
      case VALUE_NUMBER_INT:
        return parser.getBigIntegerValue();
      case VALUE_NUMBER_FLOAT:
        return stripped(parser.getDecimalValue());
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return NULL;
      default:
        throw new IOException("unexpected JSON token " + token);
    }
  }

  /** jackson-databind's tree normalization of a decimal (its default, trailing zeros stripped). */
  private static BigDecimal stripped(BigDecimal value) {
    if (value.signum() == 0) {
      return BigDecimal.ZERO;
    }
    try {
      return value.stripTrailingZeros();
    } catch (ArithmeticException e) {
      return value;
    }
  }

  @SuppressWarnings("unchecked")
  private static void write(Object node, JsonGenerator gen) throws IOException {
    if (node instanceof Map<?, ?> map) {
      Map<String, Object> members = (Map<String, Object>) map;
      List<String> names = new ArrayList<>(members.keySet());
      names.sort(null);
      gen.writeStartObject();
      for (String name : names) {
        gen.writeFieldName(name);
        write(members.get(name), gen);
      }
      gen.writeEndObject();
    } else if (node instanceof List<?> list) {
      gen.writeStartArray();
      for (Object element : list) {
        write(element, gen);
      }
      gen.writeEndArray();
    } else if (node instanceof String s) {
      gen.writeString(s);
    } else if (node instanceof java.math.BigInteger i) {
      gen.writeNumber(i);
    } else if (node instanceof BigDecimal d) {
      gen.writeNumber(d);
    } else if (node instanceof Boolean b) {
      gen.writeBoolean(b);
    } else {
      gen.writeNull();
    }
  }
}
