package dev.oncely.persistence.crash;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The records the crash child writes: every field of revision {@code r} of key {@code k} is a pure
 * function of {@code (k, r)}, so a verifier can tell a stale record (lower revision) from a silently
 * wrong one (any field differs from what that revision must hold).
 */
public final class CrashWorkload {
  static final String SCOPE = "crash-tenant";
  static final String OPERATION = "crash-op";
  /** How many distinct keys the children write; small, so revisions climb across restarts. */
  public static final int KEYS = 48;

  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");
  private static final IntentState[] STATES = IntentState.values();

  private CrashWorkload() {}

  public static String key(int n) {
    return "crash-key-" + n;
  }

  public static IntentId id(String key) {
    return IntentId.of(SCOPE, OPERATION, key);
  }

  /** Revision {@code revision} of {@code key}, exactly as the child writes it. */
  public static IntentRecord record(String key, long revision) {
    String tag = key + ":" + revision;
    byte[] digest = sha256(tag);
    int bodyLength = 32 + (digest[0] & 0xff) * 4;
    StringBuilder body = new StringBuilder(bodyLength);
    while (body.length() < bodyLength) {
      body.append(tag).append(';');
    }
    int n = Integer.parseInt(key.substring(key.lastIndexOf('-') + 1));
    return IntentRecord.builder()
        .id(id(key))
        .businessId("business-" + key)
        .method("POST")
        .url("https://crash.test/" + key + "?revision=" + revision)
        .headers(Map.of("X-Revision", List.of(Long.toString(revision))))
        .body(body.substring(0, bodyLength).getBytes(StandardCharsets.UTF_8), "text/plain")
        .fingerprint(HexFormat.of().formatHex(digest))
        .state(STATES[(int) (revision % STATES.length)])
        .attempts((int) Math.min(revision, Integer.MAX_VALUE))
        .lastResponse(revision == 0 ? null
            : StoredResponse.of(200 + (int) (revision % 7), Map.of(), digest))
        .createdAt(T0.plusSeconds(n))
        .updatedAt(T0.plusSeconds(n).plusMillis(revision))
        .expiresAt(T0.plus(Duration.ofDays(3650)))
        .revision(revision)
        .build();
  }

  /** Null if {@code r} is exactly what its revision must hold, else what differs. */
  public static String problemWith(IntentRecord r) {
    IntentRecord expected = record(r.id().key(), r.revision());
    return expected.equals(r) ? null
        : "record " + r.id() + " at revision " + r.revision() + " does not hold the fields that"
            + " revision was written with: " + r;
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
