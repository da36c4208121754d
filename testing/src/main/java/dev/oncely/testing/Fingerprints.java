package dev.oncely.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Computes a request's fingerprint by a {@link FingerprintRule}. */
final class Fingerprints {
  private Fingerprints() {}

  static String of(ReceivedRequest r, FingerprintRule rule, boolean withQuery) {
    if (rule == FingerprintRule.NONE) {
      return "-";
    }
    MessageDigest sha = sha256();
    sha.update(r.method().getBytes(StandardCharsets.UTF_8));
    if (withQuery && r.url().encodedQuery() != null) {
      sha.update(("?" + r.url().encodedQuery()).getBytes(StandardCharsets.UTF_8));
    }
    sha.update((byte) 0);
    sha.update(rule == FingerprintRule.JSON_ANY_KEY_ORDER ? canonicalJson(r.body()) : r.body());
    return HexFormat.of().formatHex(sha.digest());
  }

  private static byte[] canonicalJson(byte[] body) {
    ObjectMapper sorted = Sorted.MAPPER;
    try {
      JsonNode tree = sorted.readTree(body);
      if (tree == null) {
        return body;
      }
      Object plain = sorted.treeToValue(tree, Object.class);
      return sorted.writeValueAsBytes(plain);
    } catch (IOException e) {
      return body;
    }
  }

  /** Loaded on first use: Jackson takes a while to start, and most servers compare bytes. */
  private static final class Sorted {
    static final ObjectMapper MAPPER = new ObjectMapper()
        .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
