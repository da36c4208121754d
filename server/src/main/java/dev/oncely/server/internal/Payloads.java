package dev.oncely.server.internal;

import dev.oncely.payload.Fingerprints;
import dev.oncely.payload.MalformedPayloadException;
import dev.oncely.payload.PayloadTooLargeException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The payload fingerprint of an inbound request, by the one rule the client uses for the intent
 * it sent (canonical JSON without volatile fields, multipart by parts, content codings decoded),
 * so a client and a server agree on "the same payload"; and the fingerprint a receipt keeps, which
 * binds that payload to the request's target (method and path).
 */
public final class Payloads {
  private Payloads() {}

  /** What fingerprinting found. */
  public sealed interface Result {}

  /**
   * The fingerprint.
   *
   * @param fingerprint {@code v2:} and hex SHA-256
   */
  public record Fingerprint(String fingerprint) implements Result {}

  /**
   * A body that is not what its headers declare.
   *
   * @param problem what is wrong
   */
  public record Malformed(String problem) implements Result {}

  /** A body that decodes past the limit. */
  public record TooLarge() implements Result {}

  /**
   * The fingerprint a receipt keeps: {@code payloadFingerprint} bound to the request's {@code
   * method} and {@code path}. One route serves many resources under one operation ({@code POST
   * /orders/{id}/confirm}); the same key and body sent to another resource is another request, so
   * it must be a mismatch, never the first resource's answer. {@code v2:} and hex SHA-256 of
   * length-prefixed parts under a domain of its own; the method compared in upper case.
   */
  public static String ofRequest(String method, String path, String payloadFingerprint) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part : new String[] {"oncely-request", method.toUpperCase(Locale.ROOT), path,
          payloadFingerprint}) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        sha.update(new byte[] {(byte) (bytes.length >>> 24), (byte) (bytes.length >>> 16),
            (byte) (bytes.length >>> 8), (byte) bytes.length});
        sha.update(bytes);
      }
      return Fingerprints.PREFIX + HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  /** The fingerprint of {@code body}, sent with {@code mediaType} and {@code contentCoding}. */
  public static Result fingerprint(byte[] body, String mediaType, String contentCoding,
      Collection<String> volatileFields, long maxBytes) {
    try {
      return new Fingerprint(Fingerprints.ofPayload(body, mediaType, contentCoding,
          volatileFields, maxBytes));
    } catch (PayloadTooLargeException e) {
      return new TooLarge();
    } catch (MalformedPayloadException e) {
      return new Malformed(e.detail());
    }
  }
}
