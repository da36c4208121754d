package dev.oncely.server.webhook;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A sender's own HMAC scheme, described by its parts: the header the signature comes in (with an
 * optional prefix such as {@code sha256=}, and several signatures separated by a separator), the
 * encoding (hex or base64), the algorithm (HMAC-SHA256 or HMAC-SHA512), where the message id
 * comes from (a header, or a top-level member of a JSON body), the type likewise (optional), an
 * optional timestamp header in seconds checked within a tolerance either way, and what is signed:
 * the body, {@code timestamp.body}, or {@code id.timestamp.body}. For example, a sender that sends
 * {@code X-Signature: sha512=<hex>} over {@code timestamp.body} with {@code X-Timestamp} and
 * {@code X-Event-Id}:
 *
 * <pre>{@code
 * HmacSignatures acme = HmacSignatures.builder()
 *     .signatureHeader("X-Signature").prefix("sha512=").algorithm(Algorithm.HMAC_SHA512)
 *     .idHeader("X-Event-Id").timestampHeader("X-Timestamp")
 *     .signedContent(SignedContent.TIMESTAMP_BODY)
 *     .secret(System.getenv("ACME_WEBHOOK_SECRET"))
 *     .build();
 * }</pre>
 *
 * <p>Signatures are compared in constant time on their raw bytes against the HMAC under every
 * secret (several while rotating). Checks run in this order, and the first that fails refuses the
 * delivery: the signature header is present ({@code MISSING_SIGNATURE}), the id header
 * ({@code MISSING_ID}) and timestamp header ({@code MISSING_TIMESTAMP}) are present and the
 * timestamp is a number ({@code MALFORMED}), the header holds a signature in the scheme's form
 * ({@code MALFORMED}), one matches ({@code BAD_SIGNATURE}), the timestamp is within the tolerance
 * ({@code STALE_TIMESTAMP}, {@code FUTURE_TIMESTAMP}), and the body names the id when it comes
 * from the body ({@code MISSING_ID}). A scheme without a timestamp has no replay window of its
 * own: a replayed delivery is a duplicate of its id, deduplicated while the inbox keeps it.
 *
 * <p>Immutable and thread-safe.
 */
public final class HmacSignatures implements WebhookVerifier {
  /** The default timestamp tolerance, either way: 5 minutes. */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

  private final List<byte[]> secrets;
  private final String signatureHeader;
  private final String prefix;
  private final @Nullable String separator;
  private final Encoding encoding;
  private final Algorithm algorithm;
  private final @Nullable String idHeader;
  private final @Nullable String idMember;
  private final @Nullable String typeHeader;
  private final @Nullable String typeMember;
  private final @Nullable String timestampHeader;
  private final Duration tolerance;
  private final SignedContent signedContent;

  private HmacSignatures(Builder b) {
    this.secrets = Signing.checkSecrets(b.secrets);
    this.signatureHeader = Objects.requireNonNull(b.signatureHeader);
    this.prefix = b.prefix;
    this.separator = b.separator;
    this.encoding = b.encoding;
    this.algorithm = b.algorithm;
    this.idHeader = b.idHeader;
    this.idMember = b.idMember;
    this.typeHeader = b.typeHeader;
    this.typeMember = b.typeMember;
    this.timestampHeader = b.timestampHeader;
    this.tolerance = b.tolerance;
    this.signedContent = b.signedContent;
  }

  /** A builder with nothing named yet: HMAC-SHA256, hex, no prefix, the body signed. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public VerifiedDelivery verify(WebhookRequest request, Instant now)
      throws WebhookRefusedException {
    String value = Signing.header(request, signatureHeader,
        WebhookRefusedException.Reason.MISSING_SIGNATURE);
    String id = idHeader == null ? null
        : Signing.header(request, idHeader, WebhookRefusedException.Reason.MISSING_ID);
    String timestamp = null;
    Instant signedAt = null;
    if (timestampHeader != null) {
      timestamp = Signing.header(request, timestampHeader,
          WebhookRefusedException.Reason.MISSING_TIMESTAMP);
      signedAt = Signing.epochSeconds(timestamp, "the " + timestampHeader + " header");
    }
    List<byte[]> candidates = Signing.signatures(value, separator, prefix, encoding);
    if (candidates.isEmpty()) {
      throw Signing.malformed("the " + signatureHeader + " header holds no signature of the form "
          + prefix + "<" + encoding.describe() + ">");
    }
    byte[] head = switch (signedContent) {
      case BODY -> new byte[0];
      case TIMESTAMP_BODY -> (timestamp + ".").getBytes(UTF_8);
      case ID_TIMESTAMP_BODY -> (id + "." + timestamp + ".").getBytes(UTF_8);
    };
    if (!Signing.anyMatches(algorithm.javaName, secrets, candidates, head, request.body())) {
      throw Signing.badSignature(secrets.size());
    }
    if (signedAt != null) {
      Signing.checkWindow(signedAt, now, tolerance);
    }
    if (id == null) {
      id = Signing.topLevelString(request.body(), Objects.requireNonNull(idMember));
      if (id == null || id.isBlank()) {
        throw new WebhookRefusedException(WebhookRefusedException.Reason.MISSING_ID,
            "the body is not a JSON object with a top-level string member \"" + idMember + "\"");
      }
    }
    String type = null;
    if (typeHeader != null) {
      String t = request.header(typeHeader);
      type = t == null || t.isBlank() ? null : t.trim();
    } else if (typeMember != null) {
      type = Signing.topLevelString(request.body(), typeMember);
    }
    return new VerifiedDelivery(id, type, signedAt);
  }

  /** How a signature is written in its header. */
  public enum Encoding {
    /** Hexadecimal digits, either case. */
    HEX,
    /** Base64, standard alphabet, padded or not. */
    BASE64;

    byte @Nullable [] decode(String text) {
      return this == HEX ? Signing.hex(text) : Signing.base64(text);
    }

    String describe() {
      return this == HEX ? "hex" : "base64";
    }
  }

  /** The HMAC's hash. */
  public enum Algorithm {
    /** HMAC-SHA256: 32-byte signatures. */
    HMAC_SHA256("HmacSHA256"),
    /** HMAC-SHA512: 64-byte signatures. */
    HMAC_SHA512("HmacSHA512");

    private final String javaName;

    Algorithm(String javaName) {
      this.javaName = javaName;
    }
  }

  /** What the sender signs, as bytes: the parts are joined by {@code '.'}. */
  public enum SignedContent {
    /** The body alone (GitHub's scheme). */
    BODY,
    /** The timestamp header's text, {@code '.'}, then the body (Stripe's form). */
    TIMESTAMP_BODY,
    /** The id header's text, {@code '.'}, the timestamp's, {@code '.'}, then the body. */
    ID_TIMESTAMP_BODY
  }

  /** Builds {@link HmacSignatures}. Not thread-safe. */
  public static final class Builder {
    private final List<byte[]> secrets = new ArrayList<>();
    private @Nullable String signatureHeader;
    private String prefix = "";
    private @Nullable String separator;
    private Encoding encoding = Encoding.HEX;
    private Algorithm algorithm = Algorithm.HMAC_SHA256;
    private @Nullable String idHeader;
    private @Nullable String idMember;
    private @Nullable String typeHeader;
    private @Nullable String typeMember;
    private @Nullable String timestampHeader;
    private Duration tolerance = DEFAULT_TOLERANCE;
    private SignedContent signedContent = SignedContent.BODY;

    private Builder() {}

    /**
     * The header the signature comes in (required).
     *
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public Builder signatureHeader(String name) {
      this.signatureHeader = headerName(name);
      return this;
    }

    /**
     * The text before each signature ({@code sha256=}; default none). Parts of the header with
     * another prefix are ignored, so a sender's other versions may ride along.
     */
    public Builder prefix(String prefix) {
      this.prefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /**
     * Reads several signatures from one header, separated by {@code separator} ({@code ","} or
     * {@code " "}; default: the whole value is one signature). Any one matching is enough.
     *
     * @throws IllegalArgumentException if {@code separator} is empty
     */
    public Builder separator(String separator) {
      if (Objects.requireNonNull(separator, "separator").isEmpty()) {
        throw new IllegalArgumentException("separator must not be empty");
      }
      this.separator = separator;
      return this;
    }

    /** How signatures are written (default {@link Encoding#HEX}). */
    public Builder encoding(Encoding encoding) {
      this.encoding = Objects.requireNonNull(encoding, "encoding");
      return this;
    }

    /** The HMAC's hash (default {@link Algorithm#HMAC_SHA256}). */
    public Builder algorithm(Algorithm algorithm) {
      this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
      return this;
    }

    /**
     * The message id is header {@code name}'s value. Name the id's header or its body member.
     *
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public Builder idHeader(String name) {
      this.idHeader = headerName(name);
      return this;
    }

    /**
     * The message id is the string member {@code name} of the JSON object body (read after the
     * signature is verified).
     *
     * @throws IllegalArgumentException if {@code name} is empty
     */
    public Builder idMember(String name) {
      this.idMember = memberName(name);
      return this;
    }

    /**
     * The message's type is header {@code name}'s value (optional).
     *
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public Builder typeHeader(String name) {
      this.typeHeader = headerName(name);
      return this;
    }

    /**
     * The message's type is the string member {@code name} of the JSON object body (optional).
     *
     * @throws IllegalArgumentException if {@code name} is empty
     */
    public Builder typeMember(String name) {
      this.typeMember = memberName(name);
      return this;
    }

    /**
     * The header carrying the signed timestamp, in whole seconds since the epoch. It must be
     * signed ({@link #signedContent}): a timestamp outside the signature can be changed by
     * anyone and protects nothing.
     *
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public Builder timestampHeader(String name) {
      this.timestampHeader = headerName(name);
      return this;
    }

    /**
     * How far the signed timestamp may be from the receiver's clock, either way (default
     * {@link #DEFAULT_TOLERANCE}).
     *
     * @throws IllegalArgumentException if it is zero or negative
     */
    public Builder tolerance(Duration tolerance) {
      this.tolerance = Signing.checkTolerance(tolerance);
      return this;
    }

    /** What the sender signs (default {@link SignedContent#BODY}). */
    public Builder signedContent(SignedContent signedContent) {
      this.signedContent = Objects.requireNonNull(signedContent, "signedContent");
      return this;
    }

    /**
     * Accepts signatures keyed by {@code secret}'s UTF-8 bytes. Call once per secret while
     * rotating.
     *
     * @throws IllegalArgumentException if it is empty
     */
    public Builder secret(String secret) {
      secrets.add(Signing.utf8Secret(secret));
      return this;
    }

    /**
     * Accepts signatures keyed by the raw bytes {@code key} (a sender that shows its secret in
     * base64 or hex: decode it first).
     *
     * @throws IllegalArgumentException if it is empty
     */
    public Builder secret(byte[] key) {
      if (Objects.requireNonNull(key, "key").length == 0) {
        throw new IllegalArgumentException("a webhook secret must not be empty");
      }
      secrets.add(key.clone());
      return this;
    }

    /**
     * Builds the verifier.
     *
     * @throws IllegalStateException if no signature header, no id (or both an id header and an
     *     id member), both a type header and a type member, or no secret was given; if the signed
     *     content names a timestamp without a timestamp header, or the id without an id header;
     *     if a timestamp header is named but not signed; or if the prefix contains the separator
     */
    public HmacSignatures build() {
      if (signatureHeader == null) {
        throw new IllegalStateException("name the signature header (signatureHeader)");
      }
      if ((idHeader == null) == (idMember == null)) {
        throw new IllegalStateException("name where the message id comes from: idHeader or"
            + " idMember, exactly one");
      }
      if (typeHeader != null && typeMember != null) {
        throw new IllegalStateException("the type comes from typeHeader or typeMember, not both");
      }
      if (signedContent != SignedContent.BODY && timestampHeader == null) {
        throw new IllegalStateException("signed content " + signedContent
            + " needs a timestampHeader");
      }
      if (signedContent == SignedContent.BODY && timestampHeader != null) {
        throw new IllegalStateException("timestampHeader " + timestampHeader + " is not signed"
            + " with signed content BODY, so it protects nothing; sign TIMESTAMP_BODY or"
            + " ID_TIMESTAMP_BODY, or drop the timestamp header");
      }
      if (signedContent == SignedContent.ID_TIMESTAMP_BODY && idHeader == null) {
        throw new IllegalStateException("signed content ID_TIMESTAMP_BODY needs an idHeader");
      }
      if (separator != null && prefix.contains(separator)) {
        throw new IllegalStateException("prefix '" + prefix + "' contains separator '"
            + separator + "', so no signature could be read");
      }
      return new HmacSignatures(this);
    }

    private static String headerName(String name) {
      if (Objects.requireNonNull(name, "name").isBlank()) {
        throw new IllegalArgumentException("a header name must not be blank");
      }
      return name.trim();
    }

    private static String memberName(String name) {
      if (Objects.requireNonNull(name, "name").isEmpty()) {
        throw new IllegalArgumentException("a member name must not be empty");
      }
      return name;
    }
  }
}
