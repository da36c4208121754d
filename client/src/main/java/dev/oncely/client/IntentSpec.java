package dev.oncely.client;

import dev.oncely.client.internal.Defaults;
import dev.oncely.client.internal.StoredHeaders;
import dev.oncely.client.internal.ParsedUrls;
import dev.oncely.payload.Fingerprints;
import dev.oncely.payload.MalformedPayloadException;
import dev.oncely.payload.PayloadTooLargeException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * One business intent, ready to be executed exactly once: operation, scope, method, URL, body,
 * extra headers and an optional business id, plus the idempotency key minted when {@link
 * Builder#build()} ran and the payload fingerprint. Immutable and thread-safe; the body bytes are
 * kept exactly and sent identically on every attempt.
 *
 * <p>The fingerprint is the hex SHA-256 of the normalized payload: for JSON bodies (media type
 * {@code application/json} or {@code +json}) the object keys are sorted, insignificant whitespace is
 * removed and the {@linkplain Builder#volatileFields volatile fields} are left out; a multipart body
 * is hashed by its parts; any other body as its media type and bytes. A body sent with a {@code
 * Content-Encoding} {@linkplain Builder#header header} the JDK decodes ({@code gzip}, {@code
 * x-gzip}, {@code deflate}) is fingerprinted by its decoded payload by the same rules, so the same
 * JSON compressed at another level is the same intent; a body in another coding ({@code br}) by
 * its coding, media type and bytes. The bytes sent are always the body as given, with its header.
 * Method and URL are not part of it.
 *
 * <pre>{@code
 * IntentSpec spec = IntentSpec.builder()
 *     .operation("create-payment")
 *     .scope("tenant-42")
 *     .post("https://api.example.com/payments")
 *     .jsonBody("{\"amount\":1000,\"currency\":\"JPY\"}")
 *     .businessId("order-7")
 *     .build();
 * }</pre>
 */
public final class IntentSpec {
  /** What the client adds to the rule's refusal of a body that does not decode as declared. */
  private static final String NOT_AS_CODED_CONSEQUENCE = ": a server could not read it, so it is"
      + " neither stored nor sent; send the bytes the header declares";

  /**
   * The payload fingerprint an intent with this body gets, on either entry point: the shared rule
   * ({@link Fingerprints#ofPayload(byte[], String, String, Collection, long)}, the server half's
   * too) with its refusals in the client's own types, so both entry points refuse a payload the
   * same way, before anything is stored or sent. The rule's exception is the cause of the
   * client's.
   *
   * @param contentCoding the request's {@code Content-Encoding}, or null for none
   * @param maxBodyBytes the bound of a decoded payload
   * @throws InvalidIntentException naming {@code body} or {@code volatileFields}, if the rule finds
   *     the payload malformed (JSON that is not one value, a body not in its declared coding,
   *     volatile fields for a body that is not JSON the SDK reads)
   * @throws BodyTooLargeException ({@link BodyTooLargeException#decoded}) if a coded body decodes
   *     past {@code maxBodyBytes}
   */
  public static String fingerprintOf(byte[] body, @Nullable String mediaType,
      @Nullable String contentCoding, Collection<String> volatileFields, long maxBodyBytes) {
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

  /** Default {@link Builder#maxBodyBytes(long) body size limit}: 1 MiB. */
  public static final long DEFAULT_MAX_BODY_BYTES = Defaults.MAX_BODY_BYTES;

  private final String operation;
  private final String scope;
  private final String method;
  private final HttpUrl url;
  private final byte[] body;
  private final @Nullable String mediaType;
  private final Map<String, List<String>> headers;
  private final @Nullable String businessId;
  private final Set<String> volatileFields;
  private final IntentId id;
  private final String fingerprint;
  private final Map<String, String> traceContext;
  private final @Nullable RetryPolicy retryPolicy;

  private IntentSpec(Builder b, IntentId id, String fingerprint) {
    this.operation = b.operation;
    this.scope = b.scope;
    this.method = b.method;
    this.url = b.url;
    this.body = b.body;
    this.mediaType = b.mediaType;
    this.headers = copyHeaders(b.headers);
    this.businessId = b.businessId;
    this.volatileFields = b.volatileFields.isEmpty() ? Collections.emptySet()
        : Collections.unmodifiableSet(new LinkedHashSet<>(b.volatileFields));
    this.id = id;
    this.fingerprint = fingerprint;
    this.traceContext = b.traceContext.isEmpty() ? Collections.emptyMap()
        : Collections.unmodifiableMap(new LinkedHashMap<>(b.traceContext));
    this.retryPolicy = b.retryPolicy;
  }

  private static Map<String, List<String>> copyHeaders(Map<String, List<String>> headers) {
    if (headers.isEmpty()) {
      return Collections.emptyMap();
    }
    Map<String, List<String>> copy = new LinkedHashMap<>();
    headers.forEach((name, values) -> copy.put(name, List.copyOf(values)));
    return Collections.unmodifiableMap(copy);
  }

  /** Returns a new builder: method {@code POST}, no body, random key, 1 MiB body limit. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a builder holding every setting of this spec <em>and its key</em>. Use it to rebuild the
   * same intent (for example after a restart); a changed payload under that key is refused by
   * {@link IdempotentClient} with {@link PayloadMismatchException}.
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.operation = operation;
    b.scope = scope;
    b.method = method;
    b.url = url;
    b.body = body;
    b.mediaType = mediaType;
    b.json = Fingerprints.isJson(mediaType);
    headers.forEach((name, values) -> b.headers.put(name, new ArrayList<>(values)));
    b.businessId = businessId;
    b.volatileFields.addAll(volatileFields);
    b.keyStrategy = KeyStrategy.existing(id.key());
    b.traceContext.putAll(traceContext);
    b.retryPolicy = retryPolicy;
    return b;
  }

  /**
   * Trace propagation fields stored with the intent's record (for example W3C {@code traceparent}),
   * so a drive after a restart can link to the trace the intent was born in; empty when none.
   * They are not sent as headers by the client itself.
   */
  public Map<String, String> traceContext() {
    return traceContext;
  }

  /**
   * This intent's own retry policy, or null when the client's applies. Stored with the record, so
   * a resume after a restart, by any client or interceptor on the store, drives it with the same
   * policy.
   */
  public @Nullable RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  /** The business operation, for example {@code "create-payment"}. */
  public String operation() {
    return operation;
  }

  /** The tenant, account or actor the key is scoped to. */
  public String scope() {
    return scope;
  }

  /** The HTTP method, upper case. */
  public String method() {
    return method;
  }

  /** The request URL, normalized. */
  public String url() {
    return url.toString();
  }

  /** A copy of the exact body bytes (empty for no body). */
  public byte[] body() {
    return body.clone();
  }

  /** The body's media type, or null when there is no body. */
  public @Nullable String mediaType() {
    return mediaType;
  }

  /** Extra (non-secret) request headers; unmodifiable. */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /** The stable business id (order id, event id), or null. */
  public @Nullable String businessId() {
    return businessId;
  }

  /** The JSON fields left out of the fingerprint; unmodifiable. */
  public Set<String> volatileFields() {
    return volatileFields;
  }

  /** The idempotency key. Never log it: use {@code id().safeKey()}. */
  public String key() {
    return id.key();
  }

  /** Scope, operation and key: the identity of this intent's record. */
  public IntentId id() {
    return id;
  }

  /** Hex SHA-256 of the normalized payload. */
  public String fingerprint() {
    return fingerprint;
  }

  /** Describes the intent without its key, body or headers. */
  @Override
  public String toString() {
    return "IntentSpec{" + id + ", " + method + " " + url.host() + ", bodyBytes=" + body.length + "}";
  }

  /**
   * Builds {@link IntentSpec}s. Not thread-safe. Required: {@link #operation}, {@link #scope} and
   * {@link #url}. Every setter checks its argument at once and names the setting when it refuses.
   */
  public static final class Builder {
    private String operation;
    private String scope;
    private String method = "POST";
    private HttpUrl url;
    private byte[] body = new byte[0];
    private @Nullable String mediaType;
    private boolean json;
    private final Map<String, List<String>> headers = new LinkedHashMap<>();
    private @Nullable String businessId;
    private final Set<String> volatileFields = new LinkedHashSet<>();
    private final Map<String, String> traceContext = new LinkedHashMap<>();
    private @Nullable RetryPolicy retryPolicy;
    private KeyStrategy keyStrategy = KeyStrategy.random();
    private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;

    private Builder() {}

    /**
     * Sets the business operation name, part of the key's scope.
     *
     * @throws InvalidIntentException if it is null, blank, too long or has control characters
     */
    public Builder operation(String operation) {
      this.operation = checkPart("operation", operation);
      return this;
    }

    /**
     * Sets the tenant, account or actor the key belongs to.
     *
     * @throws InvalidIntentException if it is null, blank, too long or has control characters
     */
    public Builder scope(String scope) {
      this.scope = checkPart("scope", scope);
      return this;
    }

    /**
     * Sets the HTTP method (default {@code POST}).
     *
     * @throws InvalidIntentException if it is not an HTTP token
     */
    public Builder method(String method) {
      if ("POST".equals(method)) {
        this.method = "POST";
        return this;
      }
      if (!Identifiers.isToken(method)) {
        throw new InvalidIntentException("method", "must be an HTTP token like POST");
      }
      this.method = method.toUpperCase(Locale.ROOT);
      return this;
    }

    /**
     * Sets the request URL.
     *
     * @throws InvalidIntentException if it is not an absolute http or https URL, or it carries user
     *     info ({@code user:password@}), a credential that would be stored in clear
     */
    public Builder url(String url) {
      if (url == null) {
        throw new InvalidIntentException("url", "must be an absolute http:// or https:// URL");
      }
      try {
        this.url = Identifiers.checkUrl("url", url);
      } catch (IllegalArgumentException e) {
        throw new InvalidIntentException("url", e.getMessage().substring("url ".length()));
      }
      return this;
    }

    /** Same as {@code method("POST").url(url)}. */
    public Builder post(String url) {
      return method("POST").url(url);
    }

    /**
     * Sets a JSON body from text, encoded as UTF-8, media type {@code application/json}. The text is
     * checked when the spec is built.
     *
     * @throws InvalidIntentException if {@code json} is null
     */
    public Builder jsonBody(String json) {
      if (json == null) {
        throw new InvalidIntentException("body", "must not be null");
      }
      return ownJson(json.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sets a JSON body from UTF-8 bytes, sent exactly as given; media type
     * {@code application/json; charset=utf-8}.
     *
     * @throws InvalidIntentException if {@code json} is null
     */
    public Builder jsonBody(byte[] json) {
      if (json == null) {
        throw new InvalidIntentException("body", "must not be null");
      }
      return ownJson(json.clone());
    }

    /** Sets a JSON body from bytes nobody else holds. */
    private Builder ownJson(byte[] json) {
      this.body = json;
      this.mediaType = "application/json; charset=utf-8";
      this.json = true;
      return this;
    }

    /**
     * Sets a body of any type, sent exactly as given. A JSON media type makes the fingerprint
     * JSON-normalized.
     *
     * @throws InvalidIntentException if {@code bytes} or {@code mediaType} is null or the media
     *     type cannot be parsed
     */
    public Builder body(byte[] bytes, String mediaType) {
      if (bytes == null) {
        throw new InvalidIntentException("body", "must not be null");
      }
      if (mediaType == null || okhttp3.MediaType.parse(mediaType) == null) {
        throw new InvalidIntentException("mediaType", "must be a media type like"
            + " application/octet-stream");
      }
      this.body = bytes.clone();
      this.mediaType = mediaType;
      this.json = Fingerprints.isJson(mediaType);
      return this;
    }

    /**
     * Adds a request header sent on every attempt and stored with the record. A {@code
     * Content-Encoding} header declares the coding of the body bytes (they are sent as given) and
     * decides how the payload is fingerprinted: see the class comment.
     *
     * @throws InvalidIntentException if the name is not an HTTP token (RFC 9110: no {@code :},
     *     space or other separator), the value is not valid HTTP, or the header carries
     *     credentials ({@code Authorization}, {@code Cookie}, ...): supply those from a {@link
     *     HeaderProvider} at send time
     */
    public Builder header(String name, String value) {
      if (name == null || value == null) {
        throw new InvalidIntentException("header", "name and value must not be null");
      }
      if (!Identifiers.isToken(name)) {
        throw new InvalidIntentException("header", "a header name must be an HTTP token"
            + " (letters, digits and !#$%&'*+-.^_`|~; no ':' or space)");
      }
      if (SecretHeaders.isSecret(name)) {
        throw new InvalidIntentException("header", "'" + name + "' carries credentials and is"
            + " never stored; supply it from a HeaderProvider at send time");
      }
      try {
        new okhttp3.Headers.Builder().add(name, value);
      } catch (IllegalArgumentException e) {
        throw new InvalidIntentException("header", "'" + name + "' is not a valid HTTP header");
      }
      headers.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
      return this;
    }

    /**
     * Sets the stable business id (order id, event id). Within one scope and operation a business id
     * belongs to one intent; {@link KeyStrategy#derived} needs it.
     *
     * @throws InvalidIntentException if it is blank, too long or has control characters
     */
    public Builder businessId(String businessId) {
      this.businessId = checkPart("businessId", businessId);
      return this;
    }

    /**
     * Names JSON fields left out of the fingerprint (timestamps, trace ids): top-level member names,
     * or JSON Pointers such as {@code /meta/sentAt} for nested members. Only valid with a JSON body.
     *
     * @throws InvalidIntentException if a name is null or empty
     */
    public Builder volatileFields(String... fields) {
      for (String f : Objects.requireNonNull(fields, "fields")) {
        volatileFields.add(checkVolatileField(f));
      }
      return this;
    }

    static String checkVolatileField(String field) {
      if (field == null || field.isEmpty() || field.equals("/")) {
        throw new InvalidIntentException("volatileFields", "names must not be empty");
      }
      return field;
    }

    /**
     * Sets how the key is minted (default {@link KeyStrategy#random()}).
     *
     * @throws InvalidIntentException if {@code keyStrategy} is null
     */
    public Builder keyStrategy(KeyStrategy keyStrategy) {
      if (keyStrategy == null) {
        throw new InvalidIntentException("keyStrategy", "must not be null");
      }
      this.keyStrategy = keyStrategy;
      return this;
    }

    /**
     * Gives this intent its own retry policy (attempts, backoff, deadline, attempt timeout), for an
     * operation that needs more patience or less than the client's default; stored with the
     * record. Default: the client's policy.
     *
     * @throws InvalidIntentException if {@code retryPolicy} is null
     */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      if (retryPolicy == null) {
        throw new InvalidIntentException("retryPolicy", "must not be null");
      }
      this.retryPolicy = retryPolicy;
      return this;
    }

    /**
     * Sets trace propagation fields to store with the record (replacing earlier ones); tracing
     * bridges such as {@code oncely-opentelemetry} fill it. Never put credentials here.
     *
     * @throws InvalidIntentException if a name or value is null or blank, or there are more than
     *     16 fields or a value longer than 512 characters
     */
    public Builder traceContext(Map<String, String> fields) {
      if (fields == null) {
        throw new InvalidIntentException("traceContext", "must not be null");
      }
      if (fields.size() > 16) {
        throw new InvalidIntentException("traceContext", "has " + fields.size()
            + " fields; the limit is 16");
      }
      fields.forEach((name, value) -> {
        if (name == null || name.isBlank() || value == null || value.isBlank()) {
          throw new InvalidIntentException("traceContext", "names and values must not be blank");
        }
        if (value.length() > 512) {
          throw new InvalidIntentException("traceContext", "value of '" + name + "' is "
              + value.length() + " characters; the limit is 512");
        }
      });
      traceContext.clear();
      traceContext.putAll(fields);
      return this;
    }

    /**
     * Sets the largest accepted body in bytes (default {@link #DEFAULT_MAX_BODY_BYTES}).
     *
     * @throws InvalidIntentException if {@code maxBodyBytes} is negative
     */
    public Builder maxBodyBytes(long maxBodyBytes) {
      if (maxBodyBytes < 0) {
        throw new InvalidIntentException("maxBodyBytes", "must be >= 0, was " + maxBodyBytes);
      }
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    /**
     * Checks the combination, mints the key and computes the fingerprint.
     *
     * @throws InvalidIntentException if operation, scope or URL is missing; a body is set on GET or
     *     HEAD; volatile fields are set for a non-JSON body (or one in a content coding the SDK does
     *     not decode); a JSON body is not well-formed JSON; a body does not decode as its {@code
     *     Content-Encoding} declares; or {@link KeyStrategy#derived} is used without a business id
     * @throws BodyTooLargeException if the body is over {@link #maxBodyBytes(long)}, as given or
     *     decoded from its {@code Content-Encoding}
     */
    public IntentSpec build() {
      require("operation", operation);
      require("scope", scope);
      require("url", url);
      if (body.length > maxBodyBytes) {
        throw new BodyTooLargeException(body.length, maxBodyBytes);
      }
      if ((method.equals("GET") || method.equals("HEAD")) && mediaType != null) {
        throw new InvalidIntentException("body", method + " requests cannot carry a body");
      }
      if (keyStrategy.needsBusinessId() && businessId == null) {
        throw new InvalidIntentException("businessId", "is required by KeyStrategy.derived");
      }
      String fingerprint = fingerprintOf(body, mediaType,
          StoredHeaders.contentCoding(headers), volatileFields, maxBodyBytes);
      IntentId id;
      try {
        id = IntentId.of(scope, operation, keyStrategy.mint(scope, operation, businessId));
      } catch (IllegalArgumentException e) {
        throw new InvalidIntentException("keyStrategy", "minted an unusable key: " + e.getMessage());
      }
      return new IntentSpec(this, id, fingerprint);
    }

    private static void require(String setting, Object value) {
      if (value == null) {
        throw new InvalidIntentException(setting, "is required");
      }
    }

    static String checkPart(String setting, String value) {
      if (value == null) {
        throw new InvalidIntentException(setting, "must not be blank");
      }
      try {
        return Identifiers.checkText(setting, value);
      } catch (IllegalArgumentException e) {
        throw new InvalidIntentException(setting, e.getMessage().substring(setting.length() + 1));
      }
    }
  }
}
