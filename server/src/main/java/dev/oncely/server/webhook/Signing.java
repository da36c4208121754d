package dev.oncely.server.webhook;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * What every scheme shares: HMAC over the signed content, constant-time comparison of raw
 * signature bytes, reading the signatures out of a header, the timestamp window in both
 * directions, the builders' checks, and reading a top-level member of a JSON body (a Stripe
 * event's id, a Standard Webhooks event's type).
 */
final class Signing {
  private static final JsonFactory JSON = new JsonFactory();

  private Signing() {}

  /** The secrets, checked: at least one, none empty. */
  static List<byte[]> checkSecrets(List<byte[]> secrets) {
    if (secrets.isEmpty()) {
      throw new IllegalStateException("a webhook source needs at least one secret");
    }
    for (byte[] s : secrets) {
      if (Objects.requireNonNull(s, "secret").length == 0) {
        throw new IllegalArgumentException("a webhook secret must not be empty");
      }
    }
    return List.copyOf(secrets);
  }

  /**
   * A secret given as text, keyed by its UTF-8 bytes (Stripe's {@code whsec_...} string whole,
   * GitHub's secret token).
   *
   * @throws IllegalArgumentException if it is empty
   */
  static byte[] utf8Secret(String secret) {
    Objects.requireNonNull(secret, "secret");
    if (secret.isEmpty()) {
      throw new IllegalArgumentException("a webhook secret must not be empty");
    }
    return secret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * A timestamp tolerance, checked.
   *
   * @throws IllegalArgumentException if it is zero or negative
   */
  static Duration checkTolerance(Duration tolerance) {
    Objects.requireNonNull(tolerance, "tolerance");
    if (tolerance.isNegative() || tolerance.isZero()) {
      throw new IllegalArgumentException("tolerance must be positive, was " + tolerance);
    }
    return tolerance;
  }

  /**
   * The non-blank value of header {@code name}.
   *
   * @throws WebhookRefusedException for {@code ifMissing} when it is absent or blank
   */
  static String header(WebhookRequest request, String name,
      WebhookRefusedException.Reason ifMissing) throws WebhookRefusedException {
    String value = request.header(name);
    if (value == null || value.isBlank()) {
      throw new WebhookRefusedException(ifMissing, "the " + name + " header is missing");
    }
    return value.trim();
  }

  /**
   * The signatures in a header's value: the parts between {@code separator}s (the whole value
   * when it is null) that start with {@code prefix}, decoded by {@code encoding}. Parts with
   * another prefix (another scheme version) and parts that do not decode are left out: they can
   * match nothing, and one readable signature among them is enough.
   */
  static List<byte[]> signatures(String value, @Nullable String separator, String prefix,
      HmacSignatures.Encoding encoding) {
    List<String> parts = new ArrayList<>();
    if (separator == null) {
      parts.add(value.trim());
    } else {
      int from = 0;
      for (int at; (at = value.indexOf(separator, from)) >= 0; from = at + separator.length()) {
        parts.add(value.substring(from, at).trim());
      }
      parts.add(value.substring(from).trim());
    }
    List<byte[]> out = new ArrayList<>();
    for (String part : parts) {
      if (!part.isEmpty() && part.startsWith(prefix)) {
        byte[] decoded = encoding.decode(part.substring(prefix.length()));
        if (decoded != null) {
          out.add(decoded);
        }
      }
    }
    return out;
  }

  /** HMAC of {@code parts} (concatenated) under {@code key}. */
  static byte[] hmac(String algorithm, byte[] key, byte[]... parts) {
    try {
      Mac mac = Mac.getInstance(algorithm);
      mac.init(new SecretKeySpec(key, algorithm));
      for (byte[] part : parts) {
        mac.update(part);
      }
      return mac.doFinal();
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException(algorithm + " is not available", e);
    }
  }

  /**
   * Whether any of {@code candidates} equals the HMAC of the content under any of {@code secrets}.
   * Every comparison runs in time independent of where the bytes differ, and every secret is
   * tried, so the time does not tell which secret or candidate came close.
   */
  static boolean anyMatches(String algorithm, List<byte[]> secrets, List<byte[]> candidates,
      byte[]... content) {
    boolean match = false;
    for (byte[] secret : secrets) {
      byte[] expected = hmac(algorithm, secret, content);
      for (byte[] candidate : candidates) {
        match |= MessageDigest.isEqual(expected, candidate);
      }
    }
    return match;
  }

  /**
   * Checks that {@code signedAt} is within {@code tolerance} of {@code now} in both directions.
   *
   * @throws WebhookRefusedException {@code STALE_TIMESTAMP} or {@code FUTURE_TIMESTAMP}
   */
  static void checkWindow(Instant signedAt, Instant now, Duration tolerance)
      throws WebhookRefusedException {
    Duration off = Duration.between(signedAt, now);
    if (off.compareTo(tolerance) > 0) {
      throw new WebhookRefusedException(WebhookRefusedException.Reason.STALE_TIMESTAMP,
          "the signed timestamp is " + off.getSeconds() + " s old; the receiver accepts "
              + tolerance.getSeconds() + " s either way (resend the event, or check the"
              + " sender's clock)");
    }
    if (off.negated().compareTo(tolerance) > 0) {
      throw new WebhookRefusedException(WebhookRefusedException.Reason.FUTURE_TIMESTAMP,
          "the signed timestamp is " + off.negated().getSeconds() + " s ahead of the receiver's"
              + " clock; the receiver accepts " + tolerance.getSeconds() + " s either way");
    }
  }

  /**
   * A timestamp in whole seconds since the epoch, as the schemes send it.
   *
   * @throws WebhookRefusedException {@code MALFORMED} if it is not a plain decimal number
   */
  static Instant epochSeconds(String text, String what) throws WebhookRefusedException {
    if (text.isEmpty() || text.length() > 12) {
      throw malformed(what + " is not a timestamp in seconds");
    }
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) < '0' || text.charAt(i) > '9') {
        throw malformed(what + " is not a timestamp in seconds");
      }
    }
    return Instant.ofEpochSecond(Long.parseLong(text));
  }

  /** Hex digits to bytes, or null when {@code hex} is not an even run of hex digits. */
  static byte @Nullable [] hex(String hex) {
    if (hex.isEmpty() || hex.length() % 2 != 0) {
      return null;
    }
    byte[] out = new byte[hex.length() / 2];
    for (int i = 0; i < out.length; i++) {
      int hi = Character.digit(hex.charAt(2 * i), 16);
      int lo = Character.digit(hex.charAt(2 * i + 1), 16);
      if (hi < 0 || lo < 0) {
        return null;
      }
      out[i] = (byte) (hi << 4 | lo);
    }
    return out;
  }

  /** Base64 (standard alphabet, padded or not) to bytes, or null when it does not decode. */
  static byte @Nullable [] base64(String text) {
    if (text.isEmpty()) {
      return null;
    }
    try {
      return java.util.Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  static WebhookRefusedException malformed(String why) {
    return new WebhookRefusedException(WebhookRefusedException.Reason.MALFORMED, why);
  }

  static WebhookRefusedException badSignature(int secrets) {
    return new WebhookRefusedException(WebhookRefusedException.Reason.BAD_SIGNATURE,
        "no signature matches " + (secrets == 1 ? "the endpoint's secret"
            : "any of the endpoint's " + secrets + " secrets")
            + " (check the secret, and that the body reaches the receiver unchanged)");
  }

  /**
   * The string value of the top-level member {@code name} of a JSON object body, or null when
   * the body is not a JSON object or has no such string member.
   */
  static @Nullable String topLevelString(byte[] body, String name) {
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (field.equals(name)) {
          return value == JsonToken.VALUE_STRING ? p.getText() : null;
        }
        p.skipChildren();
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }
}
