package dev.oncely.server.inbox;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.server.internal.StatusTokens;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One message as the inbox keeps it: its identity (source, message id), the exact bytes it was
 * delivered with, its type when the sender names one, its {@link InboxState}, the revision every
 * change is compared and set on (the fencing token of whoever holds it), the lease while it is
 * {@link InboxState#PROCESSING}, how many runs failed and why the last one did, and the notes an
 * operator appended. Immutable; {@link #payload()} returns a copy.
 */
public final class InboxMessage {
  private final IntentId id;
  private final String messageId;
  private final @Nullable String type;
  private final byte[] payload;
  private final @Nullable String contentType;
  private final String fingerprint;
  private final InboxState state;
  private final long revision;
  private final @Nullable Instant dueAt;
  private final @Nullable String leaseOwner;
  private final int failures;
  private final @Nullable String lastFailure;
  private final Instant receivedAt;
  private final Instant updatedAt;
  private final Instant expiresAt;
  private final List<IntentRecord.Note> notes;

  private InboxMessage(Builder b) {
    this.id = Objects.requireNonNull(b.id, "id");
    this.messageId = Objects.requireNonNull(b.messageId, "messageId");
    this.type = b.type;
    this.payload = Objects.requireNonNull(b.payload, "payload");
    this.contentType = b.contentType;
    this.fingerprint = Objects.requireNonNull(b.fingerprint, "fingerprint");
    this.state = Objects.requireNonNull(b.state, "state");
    if (b.revision < 0) {
      throw new IllegalArgumentException("revision must be >= 0, was " + b.revision);
    }
    this.revision = b.revision;
    this.dueAt = b.dueAt;
    this.leaseOwner = b.leaseOwner;
    if (b.failures < 0) {
      throw new IllegalArgumentException("failures must be >= 0, was " + b.failures);
    }
    this.failures = b.failures;
    this.lastFailure = b.lastFailure;
    this.receivedAt = Objects.requireNonNull(b.receivedAt, "receivedAt");
    this.updatedAt = Objects.requireNonNull(b.updatedAt, "updatedAt");
    this.expiresAt = Objects.requireNonNull(b.expiresAt, "expiresAt");
    this.notes = List.copyOf(b.notes);
    if ((state == InboxState.PROCESSING || state == InboxState.QUEUED) && dueAt == null) {
      throw new IllegalArgumentException(state + " needs a due time (the lease's end or the"
          + " next run's time)");
    }
  }

  /** A builder with nothing set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding every field of this message. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * The record identity: scope = the source, operation = {@code inbox}, key = the message id (or
   * its one-way hash when the id is not a usable key: see {@link #messageId()}).
   */
  public IntentId id() {
    return id;
  }

  /** The source the message came from ({@code stripe}, {@code github}, a queue's name). */
  public String source() {
    return id.scope();
  }

  /** The sender's id of the message (a webhook's event or delivery id, a queue's message id). */
  public String messageId() {
    return messageId;
  }

  /** The message's type when the sender names one ({@code payment_intent.succeeded}), or null. */
  public @Nullable String type() {
    return type;
  }

  /** A copy of the exact bytes the message was delivered with. */
  public byte[] payload() {
    return payload.clone();
  }

  /** The payload's length in bytes. */
  public int payloadLength() {
    return payload.length;
  }

  /** The payload's media type when the delivery named one, or null. */
  public @Nullable String contentType() {
    return contentType;
  }

  /** The fingerprint of the payload's exact bytes (the payload module's rule for raw bytes). */
  public String fingerprint() {
    return fingerprint;
  }

  /** Where the message stands. */
  public InboxState state() {
    return state;
  }

  /** The revision the next change must expect: the fencing token of whoever holds the message. */
  public long revision() {
    return revision;
  }

  /**
   * When the message is next due: for {@link InboxState#QUEUED} the time it may run again, for
   * {@link InboxState#PROCESSING} the end of its holder's lease (after which another worker may
   * take it over); null otherwise.
   */
  public @Nullable Instant dueAt() {
    return dueAt;
  }

  /** The instance that holds or last held the message's lease, or null. */
  public @Nullable String leaseOwner() {
    return leaseOwner;
  }

  /**
   * How many runs failed: handler throws, and runs whose lease ran out before they finished (their
   * instance died or froze).
   */
  public int failures() {
    return failures;
  }

  /** Why the last failed run failed (the exception's type and message, shortened), or null. */
  public @Nullable String lastFailure() {
    return lastFailure;
  }

  /** When the message was first stored. */
  public Instant receivedAt() {
    return receivedAt;
  }

  /** When the message last changed. */
  public Instant updatedAt() {
    return updatedAt;
  }

  /**
   * When a handled message may be purged: the source's retention after it was handled, so a
   * sender's redelivery within its retry window is still recognized.
   */
  public Instant expiresAt() {
    return expiresAt;
  }

  /** What operators wrote about this message, oldest first. */
  public List<IntentRecord.Note> notes() {
    return notes;
  }

  /**
   * The idempotency key for the outbound intent {@code step} of this message's handler: derived
   * one-way from (source, message id, step), so a run after a failure or a crash sends the same
   * key and the provider (or an Oncely client) never performs the step twice.
   *
   * @throws IllegalArgumentException if {@code step} is blank
   */
  public String outboundKey(String step) {
    return StatusTokens.outboundKey(id, step);
  }

  @Override
  public String toString() {
    return "InboxMessage{" + id.scope() + " " + id.safeKey() + " " + state + " r" + revision
        + (type == null ? "" : " " + type) + "}";
  }

  /** Builds an {@link InboxMessage}. Not thread-safe. */
  public static final class Builder {
    private @Nullable IntentId id;
    private @Nullable String messageId;
    private @Nullable String type;
    private byte @Nullable [] payload;
    private @Nullable String contentType;
    private @Nullable String fingerprint;
    private @Nullable InboxState state;
    private long revision;
    private @Nullable Instant dueAt;
    private @Nullable String leaseOwner;
    private int failures;
    private @Nullable String lastFailure;
    private @Nullable Instant receivedAt;
    private @Nullable Instant updatedAt;
    private @Nullable Instant expiresAt;
    private List<IntentRecord.Note> notes = new ArrayList<>();

    private Builder() {}

    private Builder(InboxMessage m) {
      id = m.id;
      messageId = m.messageId;
      type = m.type;
      payload = m.payload;
      contentType = m.contentType;
      fingerprint = m.fingerprint;
      state = m.state;
      revision = m.revision;
      dueAt = m.dueAt;
      leaseOwner = m.leaseOwner;
      failures = m.failures;
      lastFailure = m.lastFailure;
      receivedAt = m.receivedAt;
      updatedAt = m.updatedAt;
      expiresAt = m.expiresAt;
      notes = new ArrayList<>(m.notes);
    }

    /** The record identity. */
    public Builder id(IntentId id) {
      this.id = id;
      return this;
    }

    /** The sender's message id. */
    public Builder messageId(String messageId) {
      this.messageId = messageId;
      return this;
    }

    /** The message type, or null. */
    public Builder type(@Nullable String type) {
      this.type = type;
      return this;
    }

    /** The payload bytes, kept as given (the caller hands them over). */
    public Builder payload(byte[] payload, @Nullable String contentType) {
      this.payload = payload;
      this.contentType = contentType;
      return this;
    }

    /** The payload's fingerprint. */
    public Builder fingerprint(String fingerprint) {
      this.fingerprint = fingerprint;
      return this;
    }

    /** The state. */
    public Builder state(InboxState state) {
      this.state = state;
      return this;
    }

    /** The revision. */
    public Builder revision(long revision) {
      this.revision = revision;
      return this;
    }

    /** When the message is next due, or null. */
    public Builder dueAt(@Nullable Instant dueAt) {
      this.dueAt = dueAt;
      return this;
    }

    /** The lease's holder, or null. */
    public Builder leaseOwner(@Nullable String leaseOwner) {
      this.leaseOwner = leaseOwner;
      return this;
    }

    /** How many runs failed. */
    public Builder failures(int failures) {
      this.failures = failures;
      return this;
    }

    /** Why the last failed run failed, or null. */
    public Builder lastFailure(@Nullable String lastFailure) {
      this.lastFailure = lastFailure;
      return this;
    }

    /** When the message was first stored. */
    public Builder receivedAt(Instant receivedAt) {
      this.receivedAt = receivedAt;
      return this;
    }

    /** When the message last changed. */
    public Builder updatedAt(Instant updatedAt) {
      this.updatedAt = updatedAt;
      return this;
    }

    /** When a handled message may be purged. */
    public Builder expiresAt(Instant expiresAt) {
      this.expiresAt = expiresAt;
      return this;
    }

    /** The operators' notes, oldest first. */
    public Builder notes(List<IntentRecord.Note> notes) {
      this.notes = new ArrayList<>(notes);
      return this;
    }

    /** Appends one operator's note. */
    public Builder addNote(IntentRecord.Note note) {
      this.notes.add(Objects.requireNonNull(note, "note"));
      return this;
    }

    /**
     * Builds the message.
     *
     * @throws NullPointerException if a required field is missing
     * @throws IllegalArgumentException if a queued or processing message has no due time, or a
     *     count is negative
     */
    public InboxMessage build() {
      return new InboxMessage(this);
    }
  }
}
