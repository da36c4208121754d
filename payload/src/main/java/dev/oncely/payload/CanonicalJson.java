package dev.oncely.payload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The version 2 canonical form of one JSON value, built in one streaming pass (jackson-core only):
 * object members sorted by name (UTF-16 code-unit order, {@link String#compareTo}), volatile fields
 * left out, strings by their decoded value, numbers by their exact numeric value. The form is a
 * prefix-free byte encoding, not JSON, so two values have the same form exactly when they are the
 * same value under these rules.
 *
 * <p>Number rule: a JSON number is its decimal value, exactly. {@code 1000}, {@code 1000.0},
 * {@code 1e3} and {@code 1.000E+3} are the same number; {@code 0}, {@code -0} and {@code 0.0} are
 * zero; {@code 0.1} and {@code 0.10000000000000001} differ (no rounding to {@code double}). Each is
 * written as its shortest unscaled digits and a base-10 exponent ({@code 1e3}, {@code 125e-1}).
 *
 * <p>Encoding: object {@code {} member* {@code }}, member = string value; array {@code [} value*
 * {@code ]}; string {@code "} bytes {@code "} with {@code "} and {@code \} escaped by {@code \} and
 * each UTF-16 unit encoded on its own (CESU-8, so even lone surrogates stay distinct); number
 * {@code n} digits [{@code e} exponent] {@code ;}; {@code t}, {@code f}, {@code z} for true, false,
 * null.
 */
final class CanonicalJson {
  /**
   * The parser of the canonical form: it finds duplicate member names itself (while it sorts the
   * members, and in skipped volatile members), so Jackson's detector, which allocates a set per
   * object of more than two members, is off.
   */
  private static final JsonFactory PARSER = JsonFactory.builder().build();

  private final JsonParser parser;
  private byte[] out;
  private int size;
  /** Member names and start offsets of the objects being written, innermost last. */
  private String[] names = new String[16];
  private int[] starts = new int[16];
  private int members;
  private byte[] scratch = new byte[0];

  private CanonicalJson(JsonParser parser, int capacity) {
    this.parser = parser;
    this.out = new byte[Math.max(16, capacity)];
  }

  /**
   * Feeds the canonical form of {@code json} without the {@code volatileFields} to
   * {@code digest}.
   *
   * @throws IOException if {@code json} is not exactly one well-formed JSON value (duplicate
   *     member names, trailing content and numbers beyond {@link BigDecimal}'s range included)
   */
  static void digest(byte[] json, VolatileFields volatileFields, MessageDigest digest)
      throws IOException {
    CanonicalJson c = parse(json, volatileFields);
    digest.update(c.out, 0, c.size);
  }

  private static CanonicalJson parse(byte[] json, VolatileFields volatileFields)
      throws IOException {
    try (JsonParser parser = PARSER.createParser(json)) {
      CanonicalJson c = new CanonicalJson(parser, json.length + 8);
      JsonToken root = parser.nextToken();
      if (root == null) {
        throw new IOException("empty JSON body");
      }
      c.value(root, volatileFields);
      if (parser.nextToken() != null) {
        throw new IOException("trailing content after the JSON value");
      }
      return c;
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IOException("JSON number out of range", e);
    }
  }

  private void value(JsonToken token, VolatileFields fields) throws IOException {
    switch (token) {
      case START_OBJECT -> object(fields);
      case START_ARRAY -> array(fields);
      case VALUE_STRING -> string(parser.getTextCharacters(), parser.getTextOffset(),
          parser.getTextLength());
      case VALUE_NUMBER_INT -> integer(parser.getTextCharacters(), parser.getTextOffset(),
          parser.getTextLength());
      case VALUE_NUMBER_FLOAT -> decimal(parser.getDecimalValue());
      case VALUE_TRUE -> put('t');
      case VALUE_FALSE -> put('f');
      case VALUE_NULL -> put('z');
      default -> throw new IOException("unexpected JSON token " + token);
    }
  }

  private void object(VolatileFields fields) throws IOException {
    put('{');
    int first = members;
    boolean sorted = true;
    @Nullable List<String> removed = null;
    for (JsonToken t = parser.nextToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
      String name = parser.currentName();
      JsonToken valueToken = parser.nextToken();
      if (fields.removes(name)) {
        if (removed == null) {
          removed = new ArrayList<>(2);
        } else if (removed.contains(name)) {
          throw duplicate(name);
        }
        removed.add(name);
        skip(valueToken);
        continue;
      }
      if (members == names.length) {
        names = Arrays.copyOf(names, members * 2);
        starts = Arrays.copyOf(starts, members * 2);
      }
      if (members > first) {
        int order = names[members - 1].compareTo(name);
        if (order == 0) {
          throw duplicate(name);
        }
        if (order > 0) {
          sorted = false;
        }
      }
      names[members] = name;
      starts[members] = size;
      members++;
      string(name);
      value(valueToken, fields.member(name));
    }
    if (!sorted) {
      reorder(first, members);
    }
    Arrays.fill(names, first, members, null);
    members = first;
    put('}');
  }

  /** Rewrites the members {@code first} (inclusive) to {@code last} (exclusive) in name order. */
  private void reorder(int first, int last) throws IOException {
    int count = last - first;
    int[] order = new int[count];
    for (int i = 0; i < count; i++) {
      int member = first + i;
      int j = i;
      while (j > 0 && names[order[j - 1]].compareTo(names[member]) > 0) {
        order[j] = order[j - 1];
        j--;
      }
      if (j > 0 && names[order[j - 1]].equals(names[member])) {
        throw duplicate(names[member]);
      }
      order[j] = member;
    }
    int start = starts[first];
    int length = size - start;
    if (scratch.length < length) {
      scratch = new byte[Math.max(length, scratch.length * 2)];
    }
    System.arraycopy(out, start, scratch, 0, length);
    int at = start;
    for (int member : order) {
      int from = starts[member] - start;
      int to = (member + 1 < last ? starts[member + 1] : size) - start;
      System.arraycopy(scratch, from, out, at, to - from);
      at += to - from;
    }
  }

  /**
   * Skips the value that starts with {@code token} (a volatile member's), still refusing a
   * duplicate member name anywhere inside it, as the whole body must be one JSON value.
   */
  private void skip(JsonToken token) throws IOException {
    if (token == JsonToken.START_OBJECT) {
      Set<String> seen = new HashSet<>();
      for (JsonToken t = parser.nextToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
        String name = parser.currentName();
        if (!seen.add(name)) {
          throw duplicate(name);
        }
        skip(parser.nextToken());
      }
    } else if (token == JsonToken.START_ARRAY) {
      for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
        skip(t);
      }
    }
  }

  private JsonParseException duplicate(String name) {
    return new JsonParseException(parser, "duplicate member name '" + name + "'");
  }

  private void array(VolatileFields fields) throws IOException {
    put('[');
    int index = 0;
    for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
      value(t, fields.element(index++));
    }
    put(']');
  }

  private void string(String s) {
    ensure(s.length() * 3 + 2);
    out[size++] = '"';
    for (int i = 0; i < s.length(); i++) {
      unit(s.charAt(i));
    }
    out[size++] = '"';
  }

  private void string(char[] chars, int offset, int length) {
    ensure(length * 3 + 2);
    out[size++] = '"';
    for (int i = offset, end = offset + length; i < end; i++) {
      unit(chars[i]);
    }
    out[size++] = '"';
  }

  /** One UTF-16 unit; the caller has reserved room for two bytes of escape or three of CESU-8. */
  private void unit(char c) {
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out[size++] = '\\';
      }
      out[size++] = (byte) c;
    } else if (c < 0x800) {
      out[size++] = (byte) (0xc0 | (c >> 6));
      out[size++] = (byte) (0x80 | (c & 0x3f));
    } else {
      out[size++] = (byte) (0xe0 | (c >> 12));
      out[size++] = (byte) (0x80 | ((c >> 6) & 0x3f));
      out[size++] = (byte) (0x80 | (c & 0x3f));
    }
  }

  /** An integer literal: optional minus, digits without leading zeros (the parser checked). */
  private void integer(char[] chars, int offset, int length) {
    int end = offset + length;
    boolean negative = chars[offset] == '-';
    int first = negative ? offset + 1 : offset;
    int last = end;
    while (last > first && chars[last - 1] == '0') {
      last--;
    }
    ensure(length + 16);
    out[size++] = 'n';
    if (last == first) {
      out[size++] = '0';
    } else {
      if (negative) {
        out[size++] = '-';
      }
      for (int i = first; i < last; i++) {
        out[size++] = (byte) chars[i];
      }
      if (last < end) {
        exponent(end - last);
      }
    }
    out[size++] = ';';
  }

  private void decimal(BigDecimal value) {
    String digits;
    long exponent;
    if (value.signum() == 0) {
      digits = "0";
      exponent = 0;
    } else {
      BigDecimal stripped = value.stripTrailingZeros();
      digits = stripped.unscaledValue().toString();
      exponent = -(long) stripped.scale();
    }
    ensure(digits.length() + 24);
    out[size++] = 'n';
    for (int i = 0; i < digits.length(); i++) {
      out[size++] = (byte) digits.charAt(i);
    }
    if (exponent != 0) {
      exponent(exponent);
    }
    out[size++] = ';';
  }

  private void exponent(long exponent) {
    String e = Long.toString(exponent);
    out[size++] = 'e';
    for (int i = 0; i < e.length(); i++) {
      out[size++] = (byte) e.charAt(i);
    }
  }

  private void put(char c) {
    ensure(1);
    out[size++] = (byte) c;
  }

  private void ensure(int more) {
    if (size + more > out.length) {
      out = Arrays.copyOf(out, Math.max(out.length * 2, size + more));
    }
  }
}
