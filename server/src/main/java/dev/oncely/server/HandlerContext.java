package dev.oncely.server;

import dev.oncely.client.IntentId;
import dev.oncely.client.StoreException;
import dev.oncely.server.internal.StatusTokens;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a handler knows and may record about the request it runs: the receipt it owns (its
 * identity, the revision that fences it), keys for the outbound calls it makes, the recovery point
 * ("effects committed"), and that its effect's outcome is pending. Thread-safe; valid while the
 * handler runs.
 *
 * <p>A request without a key on an endpoint that does not require one runs <em>unprotected</em>:
 * {@link #isProtected()} is false, the recording methods do nothing and {@link #outboundKey}
 * throws.
 */
public final class HandlerContext {
  private final InboundRequest request;
  private final @Nullable ReceiptStore store;
  private final @Nullable EndpointPolicy policy;
  private final Clock clock;
  private @Nullable Receipt current;
  private boolean fencedOut;
  /** When this run last wrote its receipt (or took it), on the monotonic clock. */
  private long lastWriteNanos = System.nanoTime();
  private boolean finishing;
  private boolean pendingRequested;
  private @Nullable String pendingReference;
  private @Nullable String pendingReason;
  /** The receipt an open transactional change writes, until the app says how it ended. */
  private @Nullable Receipt openChange;

  HandlerContext(InboundRequest request, @Nullable ReceiptStore store,
      @Nullable EndpointPolicy policy, Clock clock, @Nullable Receipt owned) {
    this.request = request;
    this.store = store;
    this.policy = policy;
    this.clock = clock;
    this.current = owned;
  }

  /** The request being handled. */
  public InboundRequest request() {
    return request;
  }

  /** Whether the request carries a key and runs under a reserved receipt. */
  public boolean isProtected() {
    return current != null;
  }

  /**
   * The receipt as this run last wrote it.
   *
   * @throws IllegalStateException if the request is unprotected
   */
  public synchronized Receipt receipt() {
    if (current == null) {
      throw new IllegalStateException("an unprotected request has no receipt");
    }
    return current;
  }

  /**
   * The key for the outbound call {@code step} (say {@code "charge"}) made while handling this
   * request: derived one-way from (scope, operation, key, step), so a re-run of the handler after
   * a crash sends the provider the same key and the provider's own idempotency holds. Use it as
   * the key of an Oncely intent ({@code
   * IntentSpec.builder().keyStrategy(KeyStrategy.existing(context.outboundKey("charge")))}), or
   * as the provider's idempotency key. A {@link ReceiptRecovery} finds the same key from the
   * receipt with {@link OutboundIntents#key(Receipt, String)}.
   *
   * @throws IllegalStateException if the request is unprotected
   * @throws IllegalArgumentException if {@code step} is blank
   */
  public String outboundKey(String step) {
    return StatusTokens.outboundKey(receipt().id(), step);
  }

  /**
   * Records the recovery point: the handler's effects are committed, and {@code reference} names
   * what they created (an order id). From now on the request is never run again; if this run
   * dies before its answer is stored, a repeat completes it through the app's {@link
   * ReceiptRecovery} from {@code reference}, or gets {@code 202} until an answer can be rendered.
   * For effects in a database transaction, record it in that same transaction instead (see
   * {@code docs/server.md}, "Local effects atomic with the receipt", and {@link
   * #beginTransactionalChange}), so both commit or neither.
   *
   * @throws ReceiptFencedException if this run no longer owns the receipt (its lease ran out and
   *     another repeat took it over): the effects must be rolled back if they can be
   * @throws IllegalStateException if a transactional change is open (its transaction holds the
   *     receipt's row)
   * @throws StoreException if the store failed; the recovery point may or may not be recorded
   */
  public synchronized void effectsCommitted(String reference) {
    Objects.requireNonNull(reference, "reference");
    if (current == null) {
      return;
    }
    checkNoOpenChange();
    Receipt next = current.toBuilder().revision(current.revision() + 1)
        .effectsCommitted(true).reference(reference).updatedAt(clock.instant()).build();
    write(next);
  }

  /**
   * Declares that the effect's outcome is unknown when the handler returns (an outbound intent
   * still {@code Pending}): the receipt is kept {@code PENDING} with {@code reference} and {@code
   * reason}, and repeats get {@code 202} with a status URL until the app settles it ({@link
   * IdempotentEndpoints#settle}) or its {@link ReceiptRecovery} answers.
   */
  public synchronized void pending(String reference, String reason) {
    this.pendingReference = Objects.requireNonNull(reference, "reference");
    this.pendingReason = Objects.requireNonNull(reason, "reason");
    this.pendingRequested = current != null;
  }

  /**
   * Renews this run's lease by the endpoint's lease from now. The core renews it on a timer while
   * the handler runs; call this only from a handler that blocks the timer's effect (none does).
   *
   * @return false if this run no longer owns the receipt
   */
  public synchronized boolean renewLease() {
    if (current == null || fencedOut || finishing) {
      // Finishing: the run's end is being written from the receipt read when it began; a
      // renewal now would move the revision under it.
      return !fencedOut;
    }
    if (openChange != null) {
      // A change is open in the app's transaction (it holds the row); renewing now would wait on
      // it and then fail on the revision it moves. The change carries a fresh lease itself.
      return true;
    }
    Receipt next = current.toBuilder().revision(current.revision() + 1)
        .lease(clock.instant().plus(policy.lease()), current.leaseOwner())
        .updatedAt(clock.instant()).build();
    try {
      write(next);
      return true;
    } catch (ReceiptFencedException e) {
      return false;
    }
  }

  /**
   * Renews the lease if a third of it has passed since this run last wrote its receipt, on the
   * monotonic clock (the core's renewal sweep asks every running handler's context this). The
   * monotonic clock, not the wall clock the lease is written in: a wall clock stepped back would
   * otherwise hold renewals back while the lease ran out.
   *
   * @return false if this run no longer owns the receipt
   */
  synchronized boolean renewLeaseIfDue() {
    if (current == null || fencedOut) {
      return !fencedOut;
    }
    if (System.nanoTime() - lastWriteNanos < policy.lease().toNanos() / 3) {
      return true;
    }
    return renewLease();
  }

  /**
   * Starts a change of the receipt that the app writes in its own transaction, beside its
   * business writes (the recovery point: {@code dev.oncely.server.postgres.PostgresReceipts} does
   * this for PostgreSQL). Returns the receipt to write in place of {@link #receipt()}: its
   * successor (the next revision) with effects committed, {@code reference}, and the lease renewed
   * from now by the endpoint's lease. Until {@link #transactionalChangeEnded} says how the
   * transaction ended, the core's lease renewals of this receipt are held (the transaction holds
   * its row), no other change may start, and {@link #receipt()} stays the receipt the change
   * replaces (the {@code expected} of the app's compare-and-set). One change at a time; after a
   * rollback another may start.
   *
   * @throws IllegalStateException if the request is unprotected, or a change is already open
   * @throws ReceiptFencedException if this run no longer owns the receipt
   */
  public synchronized Receipt beginTransactionalChange(String reference) {
    Objects.requireNonNull(reference, "reference");
    Receipt owned = receipt();
    checkNoOpenChange();
    if (fencedOut) {
      throw new ReceiptFencedException(owned.id());
    }
    Instant now = clock.instant();
    openChange = owned.toBuilder().revision(owned.revision() + 1).effectsCommitted(true)
        .reference(reference).lease(now.plus(policy.lease()), owned.leaseOwner())
        .updatedAt(now).build();
    return openChange;
  }

  /**
   * Ends the change {@link #beginTransactionalChange} started. Call it after the transaction
   * ended: {@code committed} is the receipt that call returned if the transaction committed, null
   * if it rolled back. When the commit's outcome is unknown (the connection broke during it), pass
   * null: if it did commit, the run's next write of the receipt is refused on the revision and a
   * repeat completes the request from the recovery point; nothing runs twice either way.
   *
   * @throws IllegalStateException if no change is open
   * @throws IllegalArgumentException if {@code committed} is not the receipt the open change
   *     writes
   */
  public synchronized void transactionalChangeEnded(@Nullable Receipt committed) {
    if (openChange == null) {
      throw new IllegalStateException("no transactional change of the receipt is open");
    }
    if (committed != null && !committed.equals(openChange)) {
      throw new IllegalArgumentException("the committed receipt is not the one"
          + " beginTransactionalChange returned (revision " + committed.revision() + ", expected "
          + openChange.revision() + ")");
    }
    openChange = null;
    if (committed != null) {
      current = committed;
      lastWriteNanos = System.nanoTime();
    }
  }

  private void checkNoOpenChange() {
    if (openChange != null) {
      throw new IllegalStateException("a transactional change of the receipt is open: end it"
          + " with transactionalChangeEnded once its transaction committed or rolled back");
    }
  }

  private void write(Receipt next) {
    if (fencedOut) {
      throw new ReceiptFencedException(next.id());
    }
    if (!store.replace(current, next)) {
      fencedOut = true;
      throw new ReceiptFencedException(next.id());
    }
    current = next;
    lastWriteNanos = System.nanoTime();
  }

  synchronized boolean fencedOut() {
    return fencedOut;
  }

  synchronized void markFencedOut() {
    fencedOut = true;
  }

  synchronized boolean pendingRequested() {
    return pendingRequested;
  }

  synchronized @Nullable String pendingReference() {
    return pendingReference;
  }

  synchronized @Nullable String pendingReason() {
    return pendingReason;
  }

  /**
   * Ends lease renewals for good and returns the receipt the run's end is built on: a renewal
   * that was already under way either wrote before this read or writes nothing after it.
   */
  synchronized Receipt beginFinish() {
    finishing = true;
    return receipt();
  }

  /**
   * Replaces the owned receipt with {@code next} (built from {@link #beginFinish()}), or fences
   * out.
   */
  synchronized boolean finish(Receipt next) {
    try {
      write(next);
      return true;
    } catch (ReceiptFencedException e) {
      return false;
    }
  }
}
