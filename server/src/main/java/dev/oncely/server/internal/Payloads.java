package dev.oncely.server.internal;

import dev.oncely.client.BodyTooLargeException;
import dev.oncely.client.InvalidIntentException;
import dev.oncely.client.internal.Fingerprints;
import java.util.Collection;

/**
 * The payload fingerprint of an inbound request, by the one rule the client uses for the intent
 * it sent (canonical JSON without volatile fields, multipart by parts, content codings decoded),
 * so a client and a server agree on "the same payload".
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

  /** The fingerprint of {@code body}, sent with {@code mediaType} and {@code contentCoding}. */
  public static Result fingerprint(byte[] body, String mediaType, String contentCoding,
      Collection<String> volatileFields, long maxBytes) {
    try {
      return new Fingerprint(Fingerprints.ofPayload(body, mediaType, contentCoding,
          volatileFields, maxBytes));
    } catch (BodyTooLargeException e) {
      return new TooLarge();
    } catch (InvalidIntentException e) {
      return new Malformed(e.getMessage());
    }
  }
}
