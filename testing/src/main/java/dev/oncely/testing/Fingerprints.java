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
  private static final ObjectMapper SORTED = new ObjectMapper()
      .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

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
    try {
      JsonNode tree = SORTED.readTree(body);
      if (tree == null) {
        return body;
      }
      Object plain = SORTED.treeToValue(tree, Object.class);
      return SORTED.writeValueAsBytes(plain);
    } catch (IOException e) {
      return body;
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
