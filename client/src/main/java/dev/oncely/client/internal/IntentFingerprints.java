package dev.oncely.client.internal;

import dev.oncely.client.BodyTooLargeException;
import dev.oncely.client.InvalidIntentException;
import dev.oncely.payload.Fingerprints;
import dev.oncely.payload.MalformedPayloadException;
import dev.oncely.payload.PayloadTooLargeException;
import java.util.Collection;

/**
 * The fingerprint of an intent's payload: the shared rule ({@link Fingerprints#ofPayload(byte[],
 * String, String, Collection, long)}) with its refusals in the client's own types, so both entry
 * points refuse a payload the same way, before anything is stored or sent. The rule's exception
 * is the cause of the client's.
 */
public final class IntentFingerprints {
  /** What the client adds to the rule's refusal of a body that does not decode as declared. */
  private static final String NOT_AS_CODED_CONSEQUENCE = ": a server could not read it, so it is"
      + " neither stored nor sent; send the bytes the header declares";

  private IntentFingerprints() {}

  /**
   * The fingerprint of {@code body} as {@link Fingerprints#ofPayload(byte[], String, String,
   * Collection, long)} computes it, with {@code maxBodyBytes} bounding a decoded payload.
   *
   * @param contentCoding the request's {@code Content-Encoding}, or null for none
   * @throws InvalidIntentException naming {@code body} or {@code volatileFields}, if the rule finds
   *     the payload malformed (JSON that is not one value, a body not in its declared coding,
   *     volatile fields for a body that is not JSON the SDK reads)
   * @throws BodyTooLargeException ({@link BodyTooLargeException#decoded}) if a coded body decodes
   *     past {@code maxBodyBytes}
   */
  public static String ofPayload(byte[] body, String mediaType, String contentCoding,
      Collection<String> volatileFields, long maxBodyBytes) {
    try {
      return Fingerprints.ofPayload(body, mediaType, contentCoding, volatileFields, maxBodyBytes);
    } catch (PayloadTooLargeException e) {
      BodyTooLargeException refused =
          BodyTooLargeException.decoded(e.size(), e.limit(), e.contentCoding());
      refused.initCause(e);
      throw refused;
    } catch (MalformedPayloadException e) {
      String message = e.problem() == MalformedPayloadException.Problem.NOT_AS_CODED
          ? e.detail() + NOT_AS_CODED_CONSEQUENCE : e.detail();
      throw new InvalidIntentException(e.problem().argument(), message, e);
    }
  }
}
