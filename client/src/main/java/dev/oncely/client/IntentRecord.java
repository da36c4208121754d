package dev.oncely.client;

import dev.oncely.client.internal.Digests;
import dev.oncely.client.internal.StoredHeaders;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The durable mirror of one business intent: everything needed to resend it with the same key and
 * the same body bytes after a restart, and to return its outcome again. Immutable and thread-safe.
 *
 * <p>A finished record (a {@linkplain IntentState#isTerminal() terminal} state) is never sent
 * again, so it may {@linkplain Builder#dropRequest() drop its request}: the body and every stored
 * header but {@code Content-Encoding} go, and a SHA-256 of the body bytes ({@link
 * #requestDigest()}) stays, so a repeat of the intent is still compared by its exact bytes as
 * well as by its {@linkplain #fingerprint() fingerprint}. Identity, fingerprint, outcome, stored
 * response, references, notes and times are kept.
 *
 * <p>Records never hold credentials: {@linkplain SecretHeaders secret headers} are refused by the
 * builder. Each update replaces the whole record; {@link #revision()} counts updates and drives
 * {@link IntentStore#compareAndSet compare-and-set}, so two drivers can never both own an intent.
 */
public final class IntentRecord {
  private final IntentId id;
  private final String businessId;
  private final String method;
  private final String url;
  private final Map<String, List<String>> headers;
  private final byte[] body;
  private final String mediaType;
  private final String fingerprint;
  private final IntentState state;
  private final int attempts;
  private final Instant nextAttemptAt;
  private final String pollUrl;
  private final StoredResponse lastResponse;
  private final boolean replayed;
  private final String reason;
  private final Instant createdAt;
  private final Instant updatedAt;
  private final Instant expiresAt;
  private final long revision;
  private final boolean maybeDelivered;
  private final String keyHeader;
  private final String keyValue;
  private final Map<String, String> traceContext;
  private final List<Note> notes;
  private final RetryPolicy retryPolicy;
  private final String requestDigest;

  private IntentRecord(Builder b) {
    this.id = Objects.requireNonNull(b.id, "id");
    this.businessId = b.businessId == null ? null
        : Identifiers.checkText("businessId", b.businessId);
    // A successor shares the fields it did not change with its source, which copied and checked
    // them already (they are immutable or never handed out), so a transition copies no map.
    IntentRecord from = b.from;
    // A record keeps the method its intent was first sent with. Every new intent's method is an
    // HTTP token (Identifiers.isToken: an IntentSpec refuses any other, Admission the
    // interceptor's), but records stored before that rule held for the interceptor may hold
    // another visible-ASCII method (what the app's OkHttp request carried), and this builder is
    // also how every store reads a record back: refusing those here would make such a stored
    // intent unreadable (a corrupted store, or a quarantined record) and lose its outcome. Read,
    // it resumes and is resent exactly as first sent.
    this.method = from != null && b.method == from.method ? from.method
        : Identifiers.checkStoredMethod("method", b.method);
    this.url = from != null && b.url == from.url ? from.url
        : Identifiers.checkNoUserInfo("url", Objects.requireNonNull(b.url, "url"));
    this.state = Objects.requireNonNull(b.state, "state");
    if (b.dropRequest && b.requestDigest == null) {
      // Dropped now: the digest of the bytes the intent was sent with replaces them.
      this.requestDigest = digestOf(Objects.requireNonNull(b.body, "body"));
      this.headers = Headers.copyOf(codingOnly(b.headers), true);
      this.body = EMPTY;
    } else {
      this.requestDigest = b.requestDigest;
      this.headers = from != null && b.headers == from.headers ? from.headers
          : Headers.copyOf(b.requestDigest == null ? b.headers : codingOnly(b.headers), true);
      this.body = from != null && b.body == from.body ? from.body
          : Objects.requireNonNull(b.body, "body").clone();
    }
    if (requestDigest != null) {
      // A record without its request can never be sent again: only a finished one may drop it.
      if (!state.isTerminal()) {
        throw new IllegalArgumentException("only a finished record drops its request; "
            + id + " is " + state);
      }
      if (body.length != 0) {
        throw new IllegalArgumentException("a record whose request was dropped has no body");
      }
      if ((from == null || requestDigest != from.requestDigest) && !isDigest(requestDigest)) {
        throw new IllegalArgumentException("requestDigest must be " + DIGEST_HEX_LENGTH
            + " lowercase hex digits");
      }
    }
    this.mediaType = b.mediaType;
    this.fingerprint = Objects.requireNonNull(b.fingerprint, "fingerprint");
    if (b.attempts < 0) {
      throw new IllegalArgumentException("attempts must be >= 0, was " + b.attempts);
    }
    this.attempts = b.attempts;
    this.nextAttemptAt = b.nextAttemptAt;
    this.pollUrl = b.pollUrl;
    this.lastResponse = b.lastResponse;
    this.replayed = b.replayed;
    this.reason = b.reason;
    this.createdAt = Objects.requireNonNull(b.createdAt, "createdAt");
    this.updatedAt = Objects.requireNonNull(b.updatedAt, "updatedAt");
    this.expiresAt = Objects.requireNonNull(b.expiresAt, "expiresAt");
    if (b.revision < 0) {
      throw new IllegalArgumentException("revision must be >= 0, was " + b.revision);
    }
    this.revision = b.revision;
    this.maybeDelivered = b.maybeDelivered;
    if ((b.keyHeader == null) != (b.keyValue == null)) {
      throw new IllegalArgumentException("keyHeader and keyValue are set together or not at all");
    }
    this.keyHeader = b.keyHeader == null ? null
        : Identifiers.checkHeaderName("keyHeader", b.keyHeader);
    this.keyValue = b.keyValue;
    this.traceContext = from != null && b.traceContext == from.traceContext ? from.traceContext
        : Collections.unmodifiableMap(new LinkedHashMap<>(
            Objects.requireNonNull(b.traceContext, "traceContext")));
    this.notes = from != null && b.notes == from.notes ? from.notes
        : List.copyOf(Objects.requireNonNull(b.notes, "notes"));
    this.retryPolicy = b.retryPolicy;
  }

  private static final byte[] EMPTY = new byte[0];
  private static final int DIGEST_HEX_LENGTH = 64;

  private static boolean isDigest(String hex) {
    return hex.length() == DIGEST_HEX_LENGTH
        && hex.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f');
  }

  /** The hex SHA-256 of {@code body}, as {@link #requestDigest()} holds it. */
  private static String digestOf(byte[] body) {
    return Digests.hex(Digests.sha256().digest(body));
  }

  /** The {@code Content-Encoding} values of {@code headers} alone: how the kept digest's bytes were coded. */
  private static Map<String, List<String>> codingOnly(Map<String, List<String>> headers) {
    Map<String, List<String>> kept = new LinkedHashMap<>();
    Objects.requireNonNull(headers, "headers").forEach((name, values) -> {
      if (StoredHeaders.CONTENT_ENCODING.equalsIgnoreCase(name)) {
        kept.put(name, values);
      }
    });
    return kept;
  }

  /**
   * Whether {@code body} has the bytes this record was sent with: compared byte for byte while
   * the record keeps its request, by {@link #requestDigest()} once it was dropped. Never copies
   * the body.
   */
  public boolean hasRequestBytes(byte[] body) {
    Objects.requireNonNull(body, "body");
    return requestDigest == null ? Arrays.equals(this.body, body)
        : requestDigest.equals(digestOf(body));
  }

  /** Returns an empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns a builder holding every field of this record, revision included. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Returns a builder for the next version of this record: every field copied, {@link #revision()}
   * plus one. Build it and pass it to {@link IntentStore#compareAndSet} with this record as the
   * expected value.
   */
  public Builder successor() {
    return new Builder(this).revision(revision + 1);
  }

  /** Scope, operation and key. */
  public IntentId id() {
    return id;
  }

  /** The stable business id the app attached (order id, event id), or null. */
  public @Nullable String businessId() {
    return businessId;
  }

  /** The HTTP method of the original request. */
  public String method() {
    return method;
  }

  /** The URL of the original request. */
  public String url() {
    return url;
  }

  /** Non-secret request headers the app supplied; unmodifiable. */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /**
   * Whether this finished record dropped its request ({@link Builder#dropRequest()}): its {@link
   * #body()} is then empty and its {@link #headers()} hold {@code Content-Encoding} at most,
   * whatever was sent; {@link #requestDigest()} identifies the bytes sent.
   */
  public boolean requestDropped() {
    return requestDigest != null;
  }

  /**
   * The lowercase hex SHA-256 of the body bytes sent, kept when the request was {@linkplain
   * #requestDropped() dropped}; null while the record keeps its request.
   */
  public @Nullable String requestDigest() {
    return requestDigest;
  }

  /**
   * A copy of the exact body bytes sent on every attempt (empty for no body, and once the request
   * was {@linkplain #requestDropped() dropped}).
   */
  public byte[] body() {
    return body.clone();
  }

  /** The body length in bytes, without copying it. */
  public int bodyLength() {
    return body.length;
  }

  /**
   * Copies the body into {@code destination} from index {@code at}, allocating nothing (a store
   * writes it straight into its encoding buffer).
   *
   * @throws IndexOutOfBoundsException if {@code destination} has fewer than {@link #bodyLength}
   *     bytes from {@code at}
   */
  public void copyBodyTo(byte[] destination, int at) {
    System.arraycopy(body, 0, destination, at, body.length);
  }

  /** The body's media type, or null when there is no body. */
  public @Nullable String mediaType() {
    return mediaType;
  }

  /** Hex SHA-256 of the normalized payload; a resubmission with another fingerprint is refused. */
  public String fingerprint() {
    return fingerprint;
  }

  /** Where the intent stands. */
  public IntentState state() {
    return state;
  }

  /**
   * How many attempts were started (written to the network or not), counting each request of the
   * intent that reached the network, whoever sent it (OkHttp's silent resend, an outer interceptor
   * re-running the chain): at least the number of requests the server can have seen.
   */
  public int attempts() {
    return attempts;
  }

  /** When the next attempt or poll is due, or null when none is scheduled. */
  public @Nullable Instant nextAttemptAt() {
    return nextAttemptAt;
  }

  /** The status URL a {@code 202} pointed to, polled with GET on resume; or null. */
  public @Nullable String pollUrl() {
    return pollUrl;
  }

  /** The last response the server sent, or null before the first answer. */
  public @Nullable StoredResponse lastResponse() {
    return lastResponse;
  }

  /** Whether the server marked {@link #lastResponse()} as a replay of a stored result. */
  public boolean replayed() {
    return replayed;
  }

  /** Why the intent is pending, rejected or needs reconciliation, in words safe to log; or null. */
  public @Nullable String reason() {
    return reason;
  }

  /** When the intent was born. */
  public Instant createdAt() {
    return createdAt;
  }

  /** When this version of the record was made. */
  public Instant updatedAt() {
    return updatedAt;
  }

  /**
   * When a finished record may be purged; for an unfinished one, when the server is expected to
   * have forgotten the key (after that it is never resent blindly).
   */
  public Instant expiresAt() {
    return expiresAt;
  }

  /** How many times the record was replaced since it was created (0 for a new record). */
  public long revision() {
    return revision;
  }

  /**
   * Whether any attempt of this intent may have reached the server. Set durably before the first
   * byte of the first attempt is written and never lowered: once true, a refusal or a mismatch
   * answer can no longer prove that no effect exists.
   */
  public boolean maybeDelivered() {
    return maybeDelivered;
  }

  /**
   * The request header that carries the key on the wire (for example {@code Idempotency-Key}), or
   * null for a record written before the wire form was pinned. Every attempt of the intent sends the
   * key in exactly this header with exactly {@link #keyValue()}, whatever dialect reads the record.
   */
  public @Nullable String keyHeader() {
    return keyHeader;
  }

  /** The exact header value carrying the key (quoted or not, as first sent), or null with {@link #keyHeader()}. */
  public @Nullable String keyValue() {
    return keyValue;
  }

  /**
   * Trace propagation fields stored with the intent (for example W3C {@code traceparent} and
   * {@code tracestate}), so a drive after a restart can link to the trace the intent was born in;
   * unmodifiable, empty when none.
   */
  public Map<String, String> traceContext() {
    return traceContext;
  }

  /**
   * The retry policy this intent was created with, or null when it follows the policy of whichever
   * client or interceptor drives it. Stored with the record, so a resume keeps it.
   */
  public @Nullable RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  /** The operator notes appended to this record, oldest first (an audit trail); unmodifiable. */
  public List<Note> notes() {
    return notes;
  }

  /**
   * One operator note of the audit trail: when, by whom, what was decided. Notes are appended, never
   * rewritten.
   *
   * @param at when the note was written
   * @param author who wrote it (an operator name or tool), never blank
   * @param text what was decided and why, never blank
   */
  public record Note(Instant at, String author, String text) {
    /**
     * Checks the components.
     *
     * @throws NullPointerException if a component is null
     * @throws IllegalArgumentException if {@code author} or {@code text} is blank
     */
    public Note {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(author, "author");
      Objects.requireNonNull(text, "text");
      if (author.isBlank() || text.isBlank()) {
        throw new IllegalArgumentException("a note needs an author and a text");
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof IntentRecord r)) {
      return false;
    }
    return attempts == r.attempts
        && replayed == r.replayed
        && revision == r.revision
        && id.equals(r.id)
        && Objects.equals(businessId, r.businessId)
        && method.equals(r.method)
        && url.equals(r.url)
        && headers.equals(r.headers)
        && Arrays.equals(body, r.body)
        && Objects.equals(mediaType, r.mediaType)
        && fingerprint.equals(r.fingerprint)
        && state == r.state
        && Objects.equals(nextAttemptAt, r.nextAttemptAt)
        && Objects.equals(pollUrl, r.pollUrl)
        && Objects.equals(lastResponse, r.lastResponse)
        && Objects.equals(reason, r.reason)
        && createdAt.equals(r.createdAt)
        && updatedAt.equals(r.updatedAt)
        && expiresAt.equals(r.expiresAt)
        && maybeDelivered == r.maybeDelivered
        && Objects.equals(keyHeader, r.keyHeader)
        && Objects.equals(keyValue, r.keyValue)
        && traceContext.equals(r.traceContext)
        && notes.equals(r.notes)
        && Objects.equals(retryPolicy, r.retryPolicy)
        && Objects.equals(requestDigest, r.requestDigest);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, state, revision, fingerprint);
  }

  /** Describes the record without its key, body or headers. */
  @Override
  public String toString() {
    return "IntentRecord{" + id + ", state=" + state + ", attempts=" + attempts
        + ", revision=" + revision + "}";
  }

  /**
   * Builds {@link IntentRecord}s. Not thread-safe. Required: id, method, url, fingerprint, state,
   * createdAt, updatedAt, expiresAt. Defaults: no headers, empty body, no media type, 0 attempts,
   * revision 0.
   */
  public static final class Builder {
    private IntentId id;
    private String businessId;
    private String method;
    private String url;
    private Map<String, List<String>> headers = Map.of();
    private byte[] body = new byte[0];
    private String mediaType;
    private String fingerprint;
    private IntentState state;
    private int attempts;
    private Instant nextAttemptAt;
    private String pollUrl;
    private StoredResponse lastResponse;
    private boolean replayed;
    private String reason;
    private Instant createdAt;
    private Instant updatedAt;
    private Instant expiresAt;
    private long revision;
    private boolean maybeDelivered;
    private String keyHeader;
    private String keyValue;
    private Map<String, String> traceContext = Map.of();
    private List<Note> notes = List.of();
    private RetryPolicy retryPolicy;
    private String requestDigest;
    private boolean dropRequest;
    /** The record this builder started from, whose unchanged fields the result shares. */
    private final IntentRecord from;

    private Builder() {
      from = null;
    }

    private Builder(IntentRecord r) {
      from = r;
      id = r.id;
      businessId = r.businessId;
      method = r.method;
      url = r.url;
      headers = r.headers;
      body = r.body;
      mediaType = r.mediaType;
      fingerprint = r.fingerprint;
      state = r.state;
      attempts = r.attempts;
      nextAttemptAt = r.nextAttemptAt;
      pollUrl = r.pollUrl;
      lastResponse = r.lastResponse;
      replayed = r.replayed;
      reason = r.reason;
      createdAt = r.createdAt;
      updatedAt = r.updatedAt;
      expiresAt = r.expiresAt;
      revision = r.revision;
      maybeDelivered = r.maybeDelivered;
      keyHeader = r.keyHeader;
      keyValue = r.keyValue;
      traceContext = r.traceContext;
      notes = r.notes;
      retryPolicy = r.retryPolicy;
      requestDigest = r.requestDigest;
    }

    public Builder id(IntentId id) {
      this.id = id;
      return this;
    }

    public Builder businessId(String businessId) {
      this.businessId = businessId;
      return this;
    }

    public Builder method(String method) {
      this.method = method;
      return this;
    }

    public Builder url(String url) {
      this.url = url;
      return this;
    }

    /** Non-secret headers; a secret header makes {@link #build()} throw. */
    public Builder headers(Map<String, List<String>> headers) {
      this.headers = headers;
      return this;
    }

    public Builder body(byte[] body, String mediaType) {
      this.body = body;
      this.mediaType = mediaType;
      return this;
    }

    public Builder fingerprint(String fingerprint) {
      this.fingerprint = fingerprint;
      return this;
    }

    public Builder state(IntentState state) {
      this.state = state;
      return this;
    }

    public Builder attempts(int attempts) {
      this.attempts = attempts;
      return this;
    }

    public Builder nextAttemptAt(Instant nextAttemptAt) {
      this.nextAttemptAt = nextAttemptAt;
      return this;
    }

    public Builder pollUrl(String pollUrl) {
      this.pollUrl = pollUrl;
      return this;
    }

    public Builder lastResponse(StoredResponse lastResponse) {
      this.lastResponse = lastResponse;
      return this;
    }

    public Builder replayed(boolean replayed) {
      this.replayed = replayed;
      return this;
    }

    public Builder reason(String reason) {
      this.reason = reason;
      return this;
    }

    public Builder createdAt(Instant createdAt) {
      this.createdAt = createdAt;
      return this;
    }

    public Builder updatedAt(Instant updatedAt) {
      this.updatedAt = updatedAt;
      return this;
    }

    public Builder expiresAt(Instant expiresAt) {
      this.expiresAt = expiresAt;
      return this;
    }

    public Builder revision(long revision) {
      this.revision = revision;
      return this;
    }

    /**
     * Sets whether an attempt may have reached the server. Drivers only ever raise it: a record
     * that may have been delivered stays so.
     */
    public Builder maybeDelivered(boolean maybeDelivered) {
      this.maybeDelivered = maybeDelivered;
      return this;
    }

    /** Sets the key's wire form: the header name and its exact value; both or neither. */
    public Builder keyWireForm(String keyHeader, String keyValue) {
      this.keyHeader = keyHeader;
      this.keyValue = keyValue;
      return this;
    }

    /** Sets the trace propagation fields (default none). */
    public Builder traceContext(Map<String, String> traceContext) {
      this.traceContext = traceContext;
      return this;
    }

    /** Sets the operator notes (default none); {@link #addNote} appends one. */
    public Builder notes(List<Note> notes) {
      this.notes = notes;
      return this;
    }

    /** Sets the intent's own retry policy (default null: the driving client's policy). */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    /**
     * Drops the request from the record built: its body and every header but {@code
     * Content-Encoding} go, a SHA-256 of the body stays ({@link IntentRecord#requestDigest()}).
     * Only for a finished record, which is never sent again: {@link #build()} refuses any other.
     * Dropping a request already dropped keeps its digest.
     */
    public Builder dropRequest() {
      this.dropRequest = true;
      return this;
    }

    /**
     * Marks the record as one whose request was dropped, with the digest its store kept: for
     * stores reading records back. The body must be empty and the state terminal.
     */
    public Builder droppedRequest(String requestDigest) {
      this.requestDigest = Objects.requireNonNull(requestDigest, "requestDigest");
      return this;
    }

    /** Appends one operator note to the notes already set. */
    public Builder addNote(Note note) {
      List<Note> all = new ArrayList<>(notes);
      all.add(Objects.requireNonNull(note, "note"));
      this.notes = all;
      return this;
    }

    /**
     * Returns the record.
     *
     * @throws NullPointerException if a required field is missing
     * @throws IllegalArgumentException if a header is secret, a header name, the key header or the
     *     method is not an HTTP token, the URL carries user info, the business id is not a valid
     *     text id ({@link Identifiers}), attempts or revision is negative, only one of key
     *     header and key value is set, or the request is dropped from a record that is not
     *     finished, or one with a dropped request has a body or a malformed digest
     */
    public IntentRecord build() {
      return new IntentRecord(this);
    }
  }
}
