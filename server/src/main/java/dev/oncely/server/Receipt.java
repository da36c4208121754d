package dev.oncely.server;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoredResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One idempotent request as the server keeps it: the identity (scope, operation, key), the
 * fingerprint of the request (method, path and payload) it was reserved with, its {@link
 * ReceiptState}, the revision every change is compared and set on (the fencing token of its
 * owner), the lease of the owner while it is {@link ReceiptState#PROCESSING}, the stored answer
 * once {@link ReceiptState#COMPLETED}, what the app recorded while it ran (a reference, "effects
 * committed"), and the notes operators appended when they resolved it by hand (kept through every
 * later change). Immutable.
 */
public final class Receipt {
  private final IntentId id;
  private final String fingerprint;
  private final ReceiptState state;
  private final long revision;
  private final @Nullable Instant leaseUntil;
  private final @Nullable String leaseOwner;
  private final @Nullable StoredResponse answer;
  private final @Nullable String reference;
  private final boolean effectsCommitted;
  private final @Nullable String reason;
  private final int runs;
  private final String statusToken;
  private final Instant createdAt;
  private final Instant updatedAt;
  private final Instant expiresAt;
  private final List<IntentRecord.Note> notes;

  Receipt(Builder b) {
    this.id = Objects.requireNonNull(b.id, "id");
    this.fingerprint = Objects.requireNonNull(b.fingerprint, "fingerprint");
    this.state = Objects.requireNonNull(b.state, "state");
    this.revision = b.revision;
    this.leaseUntil = b.leaseUntil;
    this.leaseOwner = b.leaseOwner;
    this.answer = b.answer;
    this.reference = b.reference;
    this.effectsCommitted = b.effectsCommitted;
    this.reason = b.reason;
    this.runs = b.runs;
    this.statusToken = Objects.requireNonNull(b.statusToken, "statusToken");
    this.createdAt = Objects.requireNonNull(b.createdAt, "createdAt");
    this.updatedAt = Objects.requireNonNull(b.updatedAt, "updatedAt");
    this.expiresAt = Objects.requireNonNull(b.expiresAt, "expiresAt");
    this.notes = List.copyOf(b.notes);
    if (state == ReceiptState.COMPLETED && answer == null) {
      throw new IllegalArgumentException("a completed receipt holds its answer");
    }
    if (state == ReceiptState.PROCESSING && leaseUntil == null) {
      throw new IllegalArgumentException("a processing receipt holds a lease");
    }
  }

  /** Scope, operation and key: the same identity a client's intent has. */
  public IntentId id() {
    return id;
  }

  /**
   * The fingerprint of the request the key was reserved with: its payload by the client's rule,
   * bound to its method and path ({@code v2:} and hex SHA-256).
   */
  public String fingerprint() {
    return fingerprint;
  }

  /** Where the request stands. */
  public ReceiptState state() {
    return state;
  }

  /** The revision the next change must expect: the fencing token of whoever holds the receipt. */
  public long revision() {
    return revision;
  }

  /** Until when the owner's lease runs ({@link ReceiptState#PROCESSING}), else null. */
  public @Nullable Instant leaseUntil() {
    return leaseUntil;
  }

  /** The instance that holds or last held the lease, or null. */
  public @Nullable String leaseOwner() {
    return leaseOwner;
  }

  /** The stored answer ({@link ReceiptState#COMPLETED}), else null. */
  public @Nullable StoredResponse answer() {
    return answer;
  }

  /**
   * What the handler named as its effect or the thing it waits on (a created resource's id, an
   * outbound intent's key), or null.
   */
  public @Nullable String reference() {
    return reference;
  }

  /**
   * Whether the handler recorded that its effects are committed: a receipt that says so is never
   * run again, only completed from what was created.
   */
  public boolean effectsCommitted() {
    return effectsCommitted;
  }

  /** Why the receipt is pending or was taken over, in words for an operator, or null. */
  public @Nullable String reason() {
    return reason;
  }

  /** How many times a handler started for this key (a takeover after a crash counts again). */
  public int runs() {
    return runs;
  }

  /**
   * The opaque, one-way token that names this receipt in its status URL; it reveals neither the
   * key nor the scope.
   */
  public String statusToken() {
    return statusToken;
  }

  /** When the key was first reserved. */
  public Instant createdAt() {
    return createdAt;
  }

  /** When the receipt last changed. */
  public Instant updatedAt() {
    return updatedAt;
  }

  /** When a finished receipt may be purged: the operation's published key retention. */
  public Instant expiresAt() {
    return expiresAt;
  }

  /**
   * The operator notes of the receipt's audit trail, oldest first (who resolved it by hand, when
   * and why); unmodifiable. Every change built with {@link #toBuilder()} keeps them.
   */
  public List<IntentRecord.Note> notes() {
    return notes;
  }

  /** Whether the owner's lease has run out at {@code now}. */
  public boolean leaseExpiredAt(Instant now) {
    return leaseUntil != null && !now.isBefore(leaseUntil);
  }

  /** A builder holding every field of this receipt. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** An empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Describes the receipt without its key or answer body. */
  @Override
  public String toString() {
    return "Receipt{" + id + ", state=" + state + ", revision=" + revision + ", runs=" + runs + "}";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Receipt r
        && revision == r.revision
        && effectsCommitted == r.effectsCommitted
        && runs == r.runs
        && id.equals(r.id)
        && fingerprint.equals(r.fingerprint)
        && state == r.state
        && Objects.equals(leaseUntil, r.leaseUntil)
        && Objects.equals(leaseOwner, r.leaseOwner)
        && Objects.equals(answer, r.answer)
        && Objects.equals(reference, r.reference)
        && Objects.equals(reason, r.reason)
        && statusToken.equals(r.statusToken)
        && createdAt.equals(r.createdAt)
        && updatedAt.equals(r.updatedAt)
        && expiresAt.equals(r.expiresAt)
        && notes.equals(r.notes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, state, revision);
  }

  /**
   * Builds {@link Receipt}s. Required: id, fingerprint, state, statusToken and the three times; a
   * processing receipt needs a lease, a completed one its answer. Not thread-safe.
   */
  public static final class Builder {
    private @Nullable IntentId id;
    private @Nullable String fingerprint;
    private @Nullable ReceiptState state;
    private long revision;
    private @Nullable Instant leaseUntil;
    private @Nullable String leaseOwner;
    private @Nullable StoredResponse answer;
    private @Nullable String reference;
    private boolean effectsCommitted;
    private @Nullable String reason;
    private int runs;
    private @Nullable String statusToken;
    private @Nullable Instant createdAt;
    private @Nullable Instant updatedAt;
    private @Nullable Instant expiresAt;
    private List<IntentRecord.Note> notes = List.of();

    Builder() {}

    Builder(Receipt r) {
      id = r.id;
      fingerprint = r.fingerprint;
      state = r.state;
      revision = r.revision;
      leaseUntil = r.leaseUntil;
      leaseOwner = r.leaseOwner;
      answer = r.answer;
      reference = r.reference;
      effectsCommitted = r.effectsCommitted;
      reason = r.reason;
      runs = r.runs;
      statusToken = r.statusToken;
      createdAt = r.createdAt;
      updatedAt = r.updatedAt;
      expiresAt = r.expiresAt;
      notes = r.notes;
    }

    /** Scope, operation and key. */
    public Builder id(IntentId id) {
      this.id = id;
      return this;
    }

    /** The payload's fingerprint. */
    public Builder fingerprint(String fingerprint) {
      this.fingerprint = fingerprint;
      return this;
    }

    /** The state. */
    public Builder state(ReceiptState state) {
      this.state = state;
      return this;
    }

    /** The revision (0 for a new receipt). */
    public Builder revision(long revision) {
      this.revision = revision;
      return this;
    }

    /** The owner's lease end and name, or nulls. */
    public Builder lease(@Nullable Instant until, @Nullable String owner) {
      this.leaseUntil = until;
      this.leaseOwner = owner;
      return this;
    }

    /** The stored answer, or null. */
    public Builder answer(@Nullable StoredResponse answer) {
      this.answer = answer;
      return this;
    }

    /** The handler's reference, or null. */
    public Builder reference(@Nullable String reference) {
      this.reference = reference;
      return this;
    }

    /** Whether the handler's effects are committed. */
    public Builder effectsCommitted(boolean effectsCommitted) {
      this.effectsCommitted = effectsCommitted;
      return this;
    }

    /** Why it is pending or was taken over, or null. */
    public Builder reason(@Nullable String reason) {
      this.reason = reason;
      return this;
    }

    /** How many handler runs started. */
    public Builder runs(int runs) {
      this.runs = runs;
      return this;
    }

    /** The status URL's token. */
    public Builder statusToken(String statusToken) {
      this.statusToken = statusToken;
      return this;
    }

    /** When it was reserved. */
    public Builder createdAt(Instant createdAt) {
      this.createdAt = createdAt;
      return this;
    }

    /** When it last changed. */
    public Builder updatedAt(Instant updatedAt) {
      this.updatedAt = updatedAt;
      return this;
    }

    /** When a finished receipt may be purged. */
    public Builder expiresAt(Instant expiresAt) {
      this.expiresAt = expiresAt;
      return this;
    }

    /** The operator notes (default none); {@link #addNote} appends one. */
    public Builder notes(List<IntentRecord.Note> notes) {
      this.notes = List.copyOf(notes);
      return this;
    }

    /** Appends one operator note to the notes already set. */
    public Builder addNote(IntentRecord.Note note) {
      List<IntentRecord.Note> all = new ArrayList<>(notes);
      all.add(Objects.requireNonNull(note, "note"));
      this.notes = List.copyOf(all);
      return this;
    }

    /**
     * Returns the receipt.
     *
     * @throws NullPointerException if a required field is missing
     * @throws IllegalArgumentException if a processing receipt has no lease or a completed one no
     *     answer
     */
    public Receipt build() {
      return new Receipt(this);
    }
  }
}
