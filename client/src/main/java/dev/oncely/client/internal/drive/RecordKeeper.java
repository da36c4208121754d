package dev.oncely.client.internal.drive;

import dev.oncely.client.internal.pacing.RecordTime;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.PendingReason;
import dev.oncely.client.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * Every durable transition of one intent's record during one drive: claim, poll target, settle,
 * park. Each is a compare-and-set on the record's revision, so two drivers can never both own the
 * intent; in-memory state changes only after the store accepted the write. Every version written
 * carries the attempt count and the sticky maybe-delivered mark, which is never lowered.
 *
 * <p>The mark's durable meaning: a record created {@code IN_FLIGHT} (before the first byte of the
 * first attempt) or carrying {@link IntentRecord#maybeDelivered()} may have reached the server.
 * {@link #loadedMaybeDelivered} reads it; from then on this keeper raises the flag with every
 * write once an attempt was started. Without a store (the interceptor with none) the keeper only
 * tracks the record in memory. Times written are the drive's {@link RecordTime}: an update time
 * never goes back, whatever the wall clock does. Not thread-safe.
 */
public final class RecordKeeper {
  /** The record changed under this drive: another drive owns the intent now. */
  public static final class LostOwnership extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LostOwnership() {
      super(null, null, false, false);
    }
  }

  private final IntentStore store;
  private final RecordTime time;
  private IntentRecord record;
  private int attempts;
  private boolean delivered;
  /** Whether the stored count already holds the attempt about to start (a create or a claim). */
  private boolean precounted;

  /**
   * Keeps {@code record}, written to {@code store} (null: memory only).
   *
   * @param deliveredBefore whether an attempt may already have reached the server
   */
  public RecordKeeper(IntentStore store, RecordTime time, IntentRecord record,
      boolean deliveredBefore) {
    this.store = store;
    this.time = time;
    this.record = record;
    this.attempts = record.attempts();
    this.delivered = deliveredBefore;
  }

  /**
   * A keeper of {@code record}, just created {@code IN_FLIGHT} by the caller with its first
   * attempt already counted ({@link #FIRST_ATTEMPT}): that create was the claim.
   */
  public static RecordKeeper created(IntentStore store, RecordTime time, IntentRecord record,
      boolean deliveredBefore) {
    RecordKeeper keeper = new RecordKeeper(store, time, record, deliveredBefore);
    keeper.precounted = record.attempts() > 0;
    return keeper;
  }

  /** The attempt count a fresh record is created with: the first attempt, about to start. */
  public static final int FIRST_ATTEMPT = 1;

  /**
   * The bookkeeping of a fresh record, the same for every entry point: created and updated now,
   * kept for the key retention, and, when created {@code IN_FLIGHT} (that create is the drive's
   * claim), with its first attempt already counted. The caller adds what the intent is: id, key
   * wire form, method, URL, headers, body and fingerprint.
   */
  public static IntentRecord.Builder fresh(DriveSettings settings, IntentState state) {
    Instant now = settings.clock().wall();
    return IntentRecord.builder()
        .state(state)
        .attempts(state == IntentState.IN_FLIGHT ? FIRST_ATTEMPT : 0)
        .createdAt(now)
        .updatedAt(now)
        .expiresAt(now.plus(settings.keyRetention()));
  }

  /**
   * Whether {@code record}, as loaded from the store by a drive that did not just create it, may
   * have reached the server: it carries the mark, or a drive stopped while it was {@code
   * IN_FLIGHT} (a crash during an attempt), or it is a record written before the mark existed
   * (no pinned key wire form) that counts attempts.
   */
  public static boolean loadedMaybeDelivered(IntentRecord record) {
    return record.maybeDelivered() || record.state() == IntentState.IN_FLIGHT
        || (record.keyHeader() == null && record.attempts() > 0);
  }

  /** The current version of the record. */
  public IntentRecord record() {
    return record;
  }

  /** Attempts started over the record's life. */
  public int attempts() {
    return attempts;
  }

  /** Whether an attempt before the next one may have reached the server. */
  public boolean maybeDelivered() {
    return delivered;
  }

  /**
   * Counts an attempt about to start and returns its number. The stored count holds it already
   * when the last write (a create, a claim, a wait) was made for it; otherwise the next write
   * counts it.
   */
  public int attemptStarting() {
    if (precounted) {
      precounted = false;
      return attempts;
    }
    return ++attempts;
  }

  /** Notes that the attempt just made may have reached the server (it was not provably unsent). */
  public void attemptMayHaveReached() {
    delivered = true;
  }

  /**
   * Counts {@code extra} deliveries of the attempt just made that something else sent (OkHttp's
   * silent resend, an outer interceptor re-running the chain): every request of the intent on the
   * wire is an attempt, and the next write carries the count.
   */
  public void sentAgainByOthers(int extra) {
    attempts += extra;
  }

  /**
   * Notes that the attempt just made was refused unprocessed (its answer proves it had no effect):
   * whether an attempt may have reached the server is again what it was before that attempt. Only
   * the mark in memory is set back, before any write carried it; a stored mark is never lowered.
   */
  public void attemptRefused(boolean deliveredBefore) {
    delivered = deliveredBefore || record.maybeDelivered();
  }

  /**
   * Claims the record for this drive ({@code IN_FLIGHT}, due again at {@code busyUntil}, so a
   * scheduler never reads a live drive as a dead one) and pins the key's wire form if the record
   * has none yet.
   *
   * @param counts whether an attempt follows the claim (at once, or after a wait still owed), so
   *     the claim counts it; a drive stopped before that attempt writes the count back without it
   */
  public void claim(String keyHeader, String keyValue, Instant busyUntil, boolean counts) {
    int before = attempts;
    if (counts) {
      attempts++;
    }
    try {
      update(b -> {
        b.state(IntentState.IN_FLIGHT).nextAttemptAt(busyUntil);
        if (record.keyHeader() == null) {
          b.keyWireForm(keyHeader, keyValue);
        }
      });
    } catch (RuntimeException e) {
      attempts = before;
      throw e;
    }
    precounted = counts;
  }

  /**
   * Keeps the record {@code IN_FLIGHT} while the drive waits for its next attempt, held until
   * {@code busyUntil} (the end of the wait plus that attempt's timeout), with the attempt counted
   * already: another process's scheduler never reads the waiting drive as a dead one, and the
   * stored count is true while that attempt is on the wire. One write per wait; a drive stopped
   * during the wait writes the count back without it.
   */
  public void awaitNext(Instant busyUntil) {
    int before = attempts;
    attempts++;
    try {
      update(b -> b.nextAttemptAt(busyUntil));
    } catch (RuntimeException e) {
      attempts = before;
      throw e;
    }
    precounted = true;
  }

  /** Stores the status URL to poll ({@code null}: the submit is sent again). */
  public void pollNext(String pollUrl, StoredResponse answer, boolean replayed) {
    if (java.util.Objects.equals(pollUrl, record.pollUrl())) {
      return;
    }
    update(b -> b.pollUrl(pollUrl).lastResponse(answer).replayed(replayed));
  }

  /**
   * Records the outcome {@code state}, kept {@code retention} from now. A terminal outcome drops
   * the request from the record unless {@code keepRequest} (a finished intent is never sent
   * again), except when a repeat could only be matched by the stored bytes themselves ({@link
   * Admission#matchedByItsBytes}).
   */
  public void settle(IntentState state, StoredResponse response, boolean replayed, String reason,
      Duration retention, boolean keepRequest) {
    Instant now = time.now();
    boolean drop = state.isTerminal() && !keepRequest && !record.requestDropped()
        && !Admission.matchedByItsBytes(record);
    update(b -> {
      b.state(state).lastResponse(response).replayed(replayed).reason(reason)
          .nextAttemptAt(null).expiresAt(now.plus(retention));
      if (drop) {
        b.dropRequest();
      }
    });
  }

  /** Stops the drive {@code PENDING} with {@code reason}, due again at {@code due} (may be null). */
  public void park(PendingReason reason, String detail, Instant due, StoredResponse last) {
    update(b -> b.state(IntentState.PENDING).reason(reason.recordText(detail))
        .nextAttemptAt(due).lastResponse(last));
  }

  /** Marks the record as needing reconciliation for {@code reason}. */
  public void reconcile(String reason) {
    update(b -> b.state(IntentState.NEEDS_RECONCILIATION).reason(reason).nextAttemptAt(null));
  }

  private void update(Consumer<IntentRecord.Builder> change) {
    // A count taken for an attempt that has not started yet is not written as made.
    IntentRecord.Builder b = record.successor().updatedAt(time.now())
        .attempts(precounted ? attempts - 1 : attempts)
        .maybeDelivered(record.maybeDelivered() || delivered);
    change.accept(b);
    IntentRecord next = b.build();
    if (store != null && !store.compareAndSet(record, next)) {
      throw new LostOwnership();
    }
    record = next;
  }
}
