package dev.oncely.client.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * Payload fingerprints: hex SHA-256 of the normalized payload. JSON is parsed and re-written with
 * object keys sorted, no insignificant whitespace and the volatile fields removed; any other body is
 * hashed as its media type and its bytes.
 */
public final class Fingerprints {
  private static final JsonMapper MAPPER = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Fingerprints() {}

  /** Whether {@code mediaType} names JSON ({@code application/json} or any {@code +json}). */
  public static boolean isJson(String mediaType) {
    if (mediaType == null) {
      return false;
    }
    String essence = mediaType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return essence.equals("application/json") || essence.endsWith("+json");
  }

  /**
   * Fingerprints a JSON body. Volatile fields are top-level member names, or JSON Pointers
   * (starting with {@code /}) for nested members.
   *
   * @throws IOException if {@code json} is not one well-formed JSON value (duplicate keys included)
   */
  public static String ofJson(byte[] json, Collection<String> volatileFields) throws IOException {
    JsonNode tree = MAPPER.readTree(json);
    if (tree == null || tree.isMissingNode()) {
      throw new IOException("empty JSON body");
    }
    for (String field : volatileFields) {
      remove(tree, field);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(json.length);
    try (JsonGenerator gen = MAPPER.getFactory().createGenerator(out)) {
      write(tree, gen);
    }
    return sha256Hex(out.toByteArray());
  }

  /** Fingerprints a non-JSON body: its media type (or none) and its exact bytes. */
  public static String ofBytes(byte[] body, String mediaType) {
    byte[] type = (mediaType == null ? "" : mediaType.trim().toLowerCase(Locale.ROOT))
        .getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[type.length + 1 + body.length];
    System.arraycopy(type, 0, all, 0, type.length);
    System.arraycopy(body, 0, all, type.length + 1, body.length);
    return sha256Hex(all);
  }

  /** Hex SHA-256 of {@code bytes}. */
  public static String sha256Hex(byte[] bytes) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
    StringBuilder hex = new StringBuilder(digest.length * 2);
    for (byte b : digest) {
      hex.append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
    }
    return hex.toString();
  }

  private static void remove(JsonNode tree, String field) {
    if (!field.startsWith("/")) {
      if (tree instanceof ObjectNode object) {
        object.remove(field);
      }
      return;
    }
    int cut = field.lastIndexOf('/');
    JsonNode parent = cut == 0 ? tree : tree.at(field.substring(0, cut));
    String name = field.substring(cut + 1).replace("~1", "/").replace("~0", "~");
    if (parent instanceof ObjectNode object) {
      object.remove(name);
    }
  }

  private static void write(JsonNode node, JsonGenerator gen) throws IOException {
    if (node.isObject()) {
      List<String> names = new ArrayList<>();
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        names.add(it.next());
      }
      names.sort(null);
      gen.writeStartObject();
      for (String name : names) {
        gen.writeFieldName(name);
        write(node.get(name), gen);
      }
      gen.writeEndObject();
    } else if (node.isArray()) {
      gen.writeStartArray();
      for (JsonNode element : node) {
        write(element, gen);
      }
      gen.writeEndArray();
    } else {
      gen.writeTree(node);
    }
  }
}
