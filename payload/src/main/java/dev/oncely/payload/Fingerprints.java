package dev.oncely.payload;

import dev.oncely.payload.MalformedPayloadException.Problem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The payload fingerprint rule: two requests carry the same payload exactly when their
 * fingerprints are equal. A fingerprint is {@link #PREFIX} and the hex SHA-256 of the normalized
 * payload; a client stores it with an intent, a server with an idempotency key, and each compares
 * a later request's against it, so the form is pinned (the tests hold known answers) and never
 * changes under one prefix. A JSON body is normalized to a canonical form (members sorted,
 * volatile fields removed, strings by value, numbers by exact value: {@code 1000.0} is {@code
 * 1000}); a multipart body by its parts (each part's headers and bytes, in order, and the media
 * type without its boundary); any other body is its media type and its exact bytes. Each form
 * hashes its own domain tag first, so two forms never collide. A fingerprint stored by an earlier
 * release may differ for the same payload (a multipart body hashed with its boundary, as media
 * type and bytes): a caller that keeps the stored bytes decides such a record by fingerprinting
 * them again.
 *
 * <p><b>Content codings.</b> A body with a {@code Content-Encoding} is fingerprinted by its
 * <em>decoded</em> payload when every coding is one the JDK decodes ({@code gzip}, {@code x-gzip},
 * {@code deflate}, and {@code identity}, which is none; a list of them is undone last applied
 * first): the decoded bytes follow the rules above, so gzipped JSON has the fingerprint of that
 * JSON. Why the decoded form and not the bytes: the payload is what the server acts on; the same
 * JSON compressed at another level (an app upgrade, another library) or not compressed at all is
 * the same intent, volatile fields keep working, and a server that shares this rule decodes before
 * it compares, as it must to read the body. Decoding is strict and bounded: a body that is not
 * what its header declares is refused, and no decoded payload may pass the caller's limit. A body
 * in any other coding ({@code br}, {@code zstd}, an unknown one) is opaque to the rule: it is
 * fingerprinted by its codings, media type and exact bytes, under a domain of its own. Decoding
 * only ever feeds the hash: the client stores and sends the exact encoded bytes with their
 * {@code Content-Encoding}.
 *
 * <p>Every method depends on its arguments only and is safe to call from any thread.
 */
public final class Fingerprints {
  /** The prefix of every fingerprint this rule computes: its version ({@value}). */
  public static final String PREFIX = "v2:";

  private static final byte[] JSON_DOMAIN = "json\0".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] BYTES_DOMAIN = "bytes\0".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MULTIPART_DOMAIN = "multipart\0".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CODED_DOMAIN = "coded\0".getBytes(StandardCharsets.US_ASCII);
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final MessageDigest SHA256 = newSha256();

  private Fingerprints() {}

  /**
   * Whether {@code mediaType} names JSON ({@code application/json} or any {@code +json}, whatever
   * the case and parameters): the media types whose bodies are fingerprinted as JSON.
   *
   * @param mediaType a {@code Content-Type} value, or null for none
   * @return true if the body is fingerprinted as JSON
   */
  public static boolean isJson(@Nullable String mediaType) {
    if (mediaType == null) {
      return false;
    }
    String essence = mediaType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return essence.equals("application/json") || essence.endsWith("+json");
  }

  /**
   * Whether {@code mediaType} names a {@code multipart/*} type with exactly one well-formed
   * boundary: the media types whose bodies are fingerprinted by their parts when their bytes
   * follow that boundary's framing.
   *
   * @param mediaType a {@code Content-Type} value, or null for none
   * @return true if the media type declares multipart framing
   */
  public static boolean isMultipart(@Nullable String mediaType) {
    return MultipartParts.framingOf(mediaType) != null;
  }

  /**
   * The payload fingerprint of a body sent without a content coding: {@link #ofPayload(byte[],
   * String, String, Collection, long)} with none, so no limit applies.
   *
   * @param body the exact body bytes
   * @param mediaType the body's {@code Content-Type}, or null for none
   * @param volatileFields JSON members left out of the fingerprint: top-level member names, or
   *     JSON Pointers (RFC 6901, starting with {@code /}) for nested members; empty for none
   * @return the fingerprint, starting with {@link #PREFIX}
   * @throws MalformedPayloadException if a body declared JSON is not one well-formed JSON value
   *     ({@link Problem#MALFORMED_JSON}), or volatile fields are named for a non-empty body that is
   *     not JSON ({@link Problem#VOLATILE_FIELDS_WITHOUT_JSON})
   */
  public static String ofPayload(byte[] body, @Nullable String mediaType,
      Collection<String> volatileFields) {
    return ofPayload(body, mediaType, null, volatileFields, Long.MAX_VALUE);
  }

  /**
   * The fingerprint of one request's payload, by the one rule every caller shares (the client's
   * intent API and interceptor, a server comparing a repeated key): a non-empty body whose media
   * type names JSON is fingerprinted as JSON without its volatile fields and must be one
   * well-formed JSON value; a {@code multipart/*} body with a boundary by its parts, so the same
   * parts under another boundary are the same payload; any other body by its media type and exact
   * bytes. Volatile fields can only be named for JSON. An empty body is no payload at all (a
   * {@code POST} with a JSON content type and nothing in it): it is fingerprinted by its media
   * type alone, with nothing to leave out.
   *
   * <p>A body with a {@code contentCoding} the JDK decodes is decoded first, and the rules above
   * apply to the decoded bytes; a body in another coding is fingerprinted by its codings, media
   * type and exact bytes, and takes no volatile fields (see the class comment for why).
   *
   * <p>A body declared multipart whose bytes do not follow its boundary's framing is fingerprinted
   * by its media type and exact bytes, as any other body: it is sent exactly as stored either way,
   * so refusing it would only turn a body the server may accept into an error, and guessing parts
   * from it could call two different payloads the same.
   *
   * @param body the exact body bytes, as sent (encoded, when it has a content coding)
   * @param mediaType the body's {@code Content-Type}, or null for none
   * @param contentCoding the request's {@code Content-Encoding} (several header lines joined with
   *     {@code ", "}), or null for none
   * @param volatileFields JSON members left out of the fingerprint: top-level member names, or
   *     JSON Pointers (RFC 6901, starting with {@code /}) for nested members; empty for none
   * @param maxDecodedBytes the largest decoded payload accepted (a client passes its body limit);
   *     bounds only the decoding of a coded body
   * @return the fingerprint, starting with {@link #PREFIX}
   * @throws MalformedPayloadException if a body declared JSON is not one well-formed JSON value,
   *     as sent or once decoded ({@link Problem#MALFORMED_JSON}); a body does not decode as its
   *     content coding declares ({@link Problem#NOT_AS_CODED}); or volatile fields are named for
   *     a non-empty body that is not JSON, or is in a coding this rule does not decode ({@link
   *     Problem#VOLATILE_FIELDS_WITHOUT_JSON})
   * @throws PayloadTooLargeException if a coded body decodes to more than {@code
   *     maxDecodedBytes}
   */
  public static String ofPayload(byte[] body, @Nullable String mediaType,
      @Nullable String contentCoding, Collection<String> volatileFields, long maxDecodedBytes) {
    if (body.length == 0) {
      return ofBytes(body, mediaType);
    }
    List<String> codings = ContentCodings.parse(contentCoding);
    if (codings.isEmpty()) {
      return ofUncoded(body, mediaType, volatileFields, null);
    }
    if (ContentCodings.decodable(codings)) {
      byte[] decoded = ContentCodings.decode(body, codings, maxDecodedBytes, contentCoding);
      return ofUncoded(decoded, mediaType, volatileFields, contentCoding);
    }
    if (!volatileFields.isEmpty()) {
      throw new MalformedPayloadException(Problem.VOLATILE_FIELDS_WITHOUT_JSON, "need a JSON body"
          + " the SDK can read; the body's Content-Encoding is '" + contentCoding + "', which it"
          + " does not decode (it decodes gzip, x-gzip, deflate and identity)");
    }
    return ofCoded(body, mediaType, codings);
  }

  /** The rules for a body as sent, or as decoded from {@code coding} (null: none). */
  private static String ofUncoded(byte[] body, @Nullable String mediaType,
      Collection<String> volatileFields, @Nullable String coding) {
    if (body.length == 0) {
      return ofBytes(body, mediaType);
    }
    if (!isJson(mediaType)) {
      if (!volatileFields.isEmpty()) {
        throw new MalformedPayloadException(Problem.VOLATILE_FIELDS_WITHOUT_JSON, "need a JSON"
            + " body; the body's media type is "
            + (mediaType == null ? "none" : "'" + mediaType + "'"));
      }
      return ofMultipartOrBytes(body, mediaType);
    }
    try {
      return ofJson(body, volatileFields);
    } catch (IOException e) {
      // Not the cause: the parser's message quotes the body's text, which no message may carry.
      throw new MalformedPayloadException(Problem.MALFORMED_JSON, "is declared JSON ('"
          + mediaType + "') but is not one well-formed JSON value"
          + (coding == null ? "" : " once decoded from Content-Encoding '" + coding + "'"));
    }
  }

  /**
   * Fingerprints a body in a content coding the SDK does not decode: its codings, media type and
   * exact bytes.
   */
  private static String ofCoded(byte[] body, @Nullable String mediaType, List<String> codings) {
    MessageDigest sha = sha256();
    sha.update(CODED_DOMAIN);
    sha.update(String.join(", ", codings).getBytes(StandardCharsets.UTF_8));
    sha.update((byte) 0);
    sha.update(normalizedType(mediaType));
    sha.update((byte) 0);
    sha.update(body);
    return PREFIX + hex(sha.digest());
  }

  /**
   * Whether two {@code Content-Encoding} values declare the same codings, in the same order,
   * whatever their case, spacing or {@code identity} members: whether the same bytes under each
   * are the same payload.
   *
   * @param a a {@code Content-Encoding} value, or null for none
   * @param b another, or null for none
   * @return true if both declare the same codings
   */
  public static boolean sameCodings(@Nullable String a, @Nullable String b) {
    return ContentCodings.parse(a).equals(ContentCodings.parse(b));
  }

  /**
   * Fingerprints a JSON body. Volatile fields are top-level member names, or JSON Pointers
   * (starting with {@code /}) for nested members.
   *
   * @throws IOException if {@code json} is not one well-formed JSON value (duplicate keys included)
   */
  static String ofJson(byte[] json, Collection<String> volatileFields) throws IOException {
    MessageDigest sha = sha256();
    sha.update(JSON_DOMAIN);
    CanonicalJson.digest(json, VolatileFields.compile(volatileFields), sha);
    return PREFIX + hex(sha.digest());
  }

  /** Fingerprints a non-JSON body: its media type (or none) and its exact bytes. */
  static String ofBytes(byte[] body, @Nullable String mediaType) {
    MessageDigest sha = sha256();
    sha.update(BYTES_DOMAIN);
    sha.update(normalizedType(mediaType));
    sha.update((byte) 0);
    sha.update(body);
    return PREFIX + hex(sha.digest());
  }

  private static byte[] normalizedType(@Nullable String mediaType) {
    return (mediaType == null ? "" : mediaType.trim().toLowerCase(Locale.ROOT))
        .getBytes(StandardCharsets.UTF_8);
  }

  /** Fingerprints a non-JSON body: by its parts when it is multipart, else by its bytes. */
  private static String ofMultipartOrBytes(byte[] body, @Nullable String mediaType) {
    MultipartParts.@Nullable Framing framing = MultipartParts.framingOf(mediaType);
    @Nullable List<MultipartParts.Part> parts = framing == null ? null
        : MultipartParts.parse(body, framing.boundary());
    if (parts == null) {
      return ofBytes(body, mediaType);
    }
    MessageDigest sha = sha256();
    sha.update(MULTIPART_DOMAIN);
    sha.update(framing.typeWithoutBoundary().getBytes(StandardCharsets.UTF_8));
    sha.update((byte) 0);
    for (MultipartParts.Part part : parts) {
      updateSized(sha, body, part.headersFrom(), part.headersTo());
      updateSized(sha, body, part.contentFrom(), part.contentTo());
    }
    return PREFIX + hex(sha.digest());
  }

  /** Hashes a length before the bytes, so no two sequences of parts hash the same input. */
  private static void updateSized(MessageDigest sha, byte[] bytes, int from, int to) {
    long length = to - from;
    for (int shift = 56; shift >= 0; shift -= 8) {
      sha.update((byte) (length >>> shift));
    }
    sha.update(bytes, from, to - from);
  }

  /** A fresh SHA-256: a clone of one prototype, cheaper than a provider lookup per call. */
  private static MessageDigest sha256() {
    try {
      return (MessageDigest) SHA256.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256();
    }
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  private static String hex(byte[] digest) {
    char[] hex = new char[digest.length * 2];
    for (int i = 0; i < digest.length; i++) {
      hex[2 * i] = HEX[(digest[i] >> 4) & 0xf];
      hex[2 * i + 1] = HEX[digest[i] & 0xf];
    }
    return new String(hex);
  }
}
