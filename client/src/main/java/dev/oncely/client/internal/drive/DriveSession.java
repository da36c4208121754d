package dev.oncely.client.internal.drive;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.PayloadMismatchException;
import dev.oncely.client.StoreException;
import dev.oncely.client.internal.pacing.BlockingWait;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one way into a drive, for every entry point: admit (a repeat of a finished intent answers
 * from the cache; else create the record or find it), lead or join (at most one drive per intent
 * and store in the process, {@link DriveRegistry}), run ({@link DriveRun} around a {@link
 * DriveLoop}), end ({@link DriveEnd}). The intent API, the interceptor, their resumes and the due
 * work scheduler differ only in what they hand in, a {@link Plan}: where the drive runs, how a
 * caller joins a drive already running, the {@link Wire} its attempts go through; and in how they
 * render the end, which stays theirs.
 *
 * <p>Thread-safe; one session per owner ({@code IdempotentClient}, {@code
 * IdempotencyInterceptor}).
 */
public final class DriveSession {
  private final DriveSettings settings;
  private final DriveOwner owner;
  private final Admission admission;

  /**
   * How one caller goes through the session.
   *
   * @param executor where the drive runs, its first step included; null: on the calling thread,
   *     which blocks until the drive ended (a blocking call)
   * @param share whether a caller who finds the intent's drive running takes that drive's end as
   *     its own (the intent API: one outcome for all); false: it waits for that drive to end and
   *     then enters anew, and finds what it left (the interceptor: a live response has one reader)
   * @param wires the wire the attempts of a record go through
   * @param deliveredBefore whether an attempt of the call may already have been delivered before
   *     the session saw it (an outer retry of an OkHttp call)
   * @param stop null, or the caller's own stop, for a blocking wait to look at (OkHttp's cancel
   *     flag): non-null once the caller gave up
   */
  public record Plan(Executor executor, boolean share, Function<IntentRecord, Wire> wires,
      boolean deliveredBefore, Supplier<String> stop) {
    /** A plan that runs on the calling thread and shares a running drive's end. */
    public static Plan blocking(Function<IntentRecord, Wire> wires) {
      return new Plan(null, true, wires, false, null);
    }

    /** A plan that runs on {@code executor} and shares a running drive's end. */
    public static Plan async(Executor executor, Function<IntentRecord, Wire> wires) {
      return new Plan(executor, true, wires, false, null);
    }

    boolean inline() {
      return executor == null;
    }
  }

  /** A drive of a resume, started: how it ends, and when it first gives its thread back. */
  public record Started(CompletableFuture<DriveEnd> ended, CompletableFuture<?> freed) {}

  /** A session over {@code settings} whose drives {@code owner} stops when it closes. */
  public DriveSession(DriveSettings settings, DriveOwner owner) {
    this.settings = settings;
    this.owner = owner;
    this.admission = new Admission(settings);
  }

  /** The settings drives run with. */
  public DriveSettings settings() {
    return settings;
  }

  /** The owner of this session's drives. */
  public DriveOwner owner() {
    return owner;
  }

  /**
   * Admits {@code candidate} (the record a new intent would be stored as, already claimed) and
   * drives it, or joins the drive of its intent. The drive is registered under the candidate's id
   * before the record is created: a second admission of the same intent joins it, and a resume
   * listing the fresh record meanwhile joins it too, so the record is never driven twice.
   *
   * @return how the drive ended: completed when this returns for a blocking plan; completed
   *     exceptionally with {@link PayloadMismatchException} when the intent's record holds
   *     another payload (nothing sent)
   */
  public CompletableFuture<DriveEnd> admit(IntentRecord candidate, Plan plan) {
    IntentRecord finished = settings.finished() == null ? null
        : settings.finished().getIfPresent(candidate.id());
    if (finished != null) {
      // A repeat of a finished intent: no store read, no I/O.
      if (!Admission.samePayload(finished, candidate)) {
        return failed(new PayloadMismatchException(finished.id()));
      }
      return CompletableFuture.completedFuture(DriveEnd.settled(finished));
    }
    return enter(candidate.id(), candidate.fingerprint(), plan,
        mine -> admitted(mine, candidate, plan),
        running -> joinAdmitted(running, candidate),
        () -> admit(candidate, plan)).ended();
  }

  /**
   * Drives the stored record of intent {@code id} (a resume), or joins the drive running for it.
   * A drive that has begun its last write is never joined: the caller waits for it to end and
   * drives what it left (a finished record ends at once, without I/O).
   *
   * @return how the drive ended; completed exceptionally with {@link StoreException} when the
   *     store has no such record
   */
  public CompletableFuture<DriveEnd> resume(IntentId id, Plan plan) {
    return resumeStarted(id, plan).ended();
  }

  /**
   * As {@link #resume}, and also when the drive first gives its thread back (it waits or ends),
   * or at once when it joined a drive already running: a resume of a backlog starts the next
   * drive then.
   */
  public Started resumeStarted(IntentId id, Plan plan) {
    Entered entered = enter(id, null, plan, mine -> resumed(mine, plan), Drive::ended,
        () -> resume(id, plan));
    CompletableFuture<?> freed = entered.led() != null ? entered.led().yielded()
        : entered.joined() ? CompletableFuture.completedFuture(null) : entered.ended();
    return new Started(entered.ended(), freed);
  }

  /**
   * How a caller entered: it {@code led} a drive of its own (else null), {@code joined} a running
   * one, or neither (it waited for a running drive to end, or the owner is closed).
   */
  private record Entered(CompletableFuture<DriveEnd> ended, Drive led, boolean joined) {}

  /**
   * Enters the one drive of {@code id}: leads a new one ({@code lead} runs it, on the plan's
   * thread), joins the running one ({@code join}, when the plan shares and that drive is not
   * ending), or waits for the running one to end and enters anew ({@code again}).
   */
  private Entered enter(IntentId id, String fingerprint, Plan plan, Consumer<Drive> lead,
      Function<Drive, CompletableFuture<DriveEnd>> join,
      Supplier<CompletableFuture<DriveEnd>> again) {
    DriveRegistry.Entry entry = DriveRegistry.process().enter(settings.store(), id, owner,
        fingerprint);
    Drive drive = entry.drive();
    if (drive == null) {
      return new Entered(CompletableFuture.completedFuture(closedBeforeStart()), null, false);
    }
    if (!entry.acquired()) {
      if (plan.share() && !drive.isEnding()) {
        return new Entered(join.apply(drive), null, true);
      }
      return new Entered(afterEnd(drive, plan, again), null, false);
    }
    dispatch(drive, () -> lead.accept(drive), plan);
    return new Entered(drive.ended(), drive, false);
  }

  /**
   * What {@code next} gives once {@code running} has ended (and left the registry), however it
   * ended. A caller who finds a drive already making its last write asks for the intent after
   * that drive decided how it ends: joining it would hand this caller the outcome that made it
   * stop (a {@code PENDING} it was asked to drive on). A blocking caller waits here (woken by the
   * end; its own stop is looked at too); else the next entry is made on the thread that ends
   * {@code running}, and only dispatches.
   */
  private CompletableFuture<DriveEnd> afterEnd(Drive running, Plan plan,
      Supplier<CompletableFuture<DriveEnd>> next) {
    if (!plan.inline()) {
      return running.ended().handle((end, error) -> null).thenCompose(done -> next.get());
    }
    // A caller with a stop nobody announces looks at it, and at its owner's close (the running
    // drive may be another owner's, whose end this owner's close does not bring); a caller
    // without one (the intent API) is woken by the end alone.
    BlockingWait.Result waited = BlockingWait.await(running.ended(), plan.stop() == null ? null
        : () -> {
          String stop = plan.stop().get();
          return stop != null ? stop : owner.stopped();
        });
    switch (waited) {
      case DONE:
        return next.get();
      case INTERRUPTED:
        return CompletableFuture.completedFuture(DriveEnd.notStarted(
            "interrupted while another call of this intent ran",
            new InterruptedIOException("interrupted while another call of this intent ran")));
      default:
        String stop = plan.stop() == null ? null : plan.stop().get();
        return CompletableFuture.completedFuture(stop != null
            ? DriveEnd.notStarted(stop, new IOException("Canceled"))
            : closedBeforeStart());
    }
  }

  /** Joins {@code running} with {@code candidate}, refusing another payload under its key. */
  private CompletableFuture<DriveEnd> joinAdmitted(Drive running, IntentRecord candidate) {
    try {
      if (running.fingerprint() != null) {
        if (!running.fingerprint().equals(candidate.fingerprint())) {
          throw new PayloadMismatchException(candidate.id());
        }
      } else {
        settings.store().get(candidate.id()).ifPresent(existing -> {
          if (!Admission.samePayload(existing, candidate)) {
            throw new PayloadMismatchException(existing.id());
          }
        });
      }
    } catch (PayloadMismatchException e) {
      return failed(e);
    } catch (StoreException e) {
      // The running drive holds the record's own payload; joining it sends nothing of ours.
    }
    return running.ended();
  }

  /** Creates or finds the record of {@code candidate}, on the thread that owns its drive. */
  private void admitted(Drive mine, IntentRecord candidate, Plan plan) {
    // The owner's flag is set before its drives are told to stop: a drive whose turn comes
    // while the owner closes must not create or claim its record.
    if (mine.stopRequested() != null || owner.stopped() != null) {
      mine.finish(closedBeforeStart());
      return;
    }
    Admission.Admitted admitted;
    try {
      admitted = admission.admit(candidate);
    } catch (RuntimeException e) {
      mine.fail(e);
      return;
    }
    IntentRecord record = admitted.record();
    if (admitted.failure() != null) {
      // The write may have reached the disk before the failure (a failed force, a lost answer
      // from the database): the record may be durable and be resumed later, so this is not a
      // definite failure, and a new key for the same intent could be a second effect.
      mine.finish(DriveEnd.storeFailed(null, "the store failed while creating or finding the"
          + " record (" + admitted.failure().getClass().getSimpleName() + "); it may be durable"
          + " and sent by a later resume: re-submit the same spec (same key), never a new one",
          admitted.failure()));
      return;
    }
    if (admitted.created()) {
      run(mine, record, true, plan);
    } else if (!record.id().equals(candidate.id())) {
      // The business id already has an intent under another key: that one is this intent.
      resume(record.id(), plan).whenComplete((end, e) -> {
        if (e != null) {
          mine.fail(e);
        } else {
          mine.finish(end);
        }
      });
    } else {
      run(mine, record, false, plan);
    }
  }

  /** Reads the record of a resumed drive, now that this thread owns it, and drives it. */
  private void resumed(Drive mine, Plan plan) {
    // The owner's flag is set before its drives are told to stop: a drive whose turn comes
    // while the owner closes must not create or claim its record.
    if (mine.stopRequested() != null || owner.stopped() != null) {
      mine.finish(closedBeforeStart());
      return;
    }
    Optional<IntentRecord> current;
    try {
      current = settings.store().get(mine.id());
    } catch (StoreException e) {
      mine.finish(DriveEnd.storeFailed(null, "the store failed reading the record ("
          + e.getClass().getSimpleName() + "); nothing was sent", e));
      return;
    } catch (RuntimeException | Error e) {
      mine.fail(e);
      return;
    }
    if (current.isEmpty()) {
      mine.fail(new StoreException("record " + mine.id() + " is not in the store"));
      return;
    }
    run(mine, current.get(), false, plan);
  }

  /** Drives {@code record} as {@code mine}: on this thread to the end, or step by step. */
  private void run(Drive mine, IntentRecord record, boolean claimed, Plan plan) {
    if (record.state().isTerminal()) {
      // A finished intent is never sent again: its end is its record.
      mine.finish(DriveEnd.settled(record));
      return;
    }
    Wire wire;
    DriveLoop loop;
    try {
      wire = plan.wires().apply(record);
      loop = DriveLoop.of(settings, wire, record, claimed, plan.deliveredBefore());
    } catch (RuntimeException | Error e) {
      mine.fail(e);
      return;
    }
    if (plan.inline()) {
      try {
        DriveRun.here(mine, loop, wire, settings);
      } catch (RuntimeException | Error e) {
        // DriveRun failed the drive with it: the caller reads it from the drive's end.
      }
    } else {
      DriveRun.async(mine, loop, wire, settings, plan.executor());
    }
  }

  private void dispatch(Drive mine, Runnable task, Plan plan) {
    if (plan.inline()) {
      task.run();
      return;
    }
    try {
      plan.executor().execute(task);
    } catch (RejectedExecutionException e) {
      mine.finish(closedBeforeStart());
    }
  }

  /** The end of a drive its owner stopped before it read or sent anything. */
  public DriveEnd closedBeforeStart() {
    String stopped = owner.stopped();
    return DriveEnd.notStarted((stopped != null ? stopped : owner.name() + " was closed")
        + " before the drive started; nothing was sent and the record (if any) is resumable",
        null);
  }

  /** A failed future ({@code CompletableFuture.failedFuture} is missing on older Android). */
  private static <T> CompletableFuture<T> failed(Throwable e) {
    CompletableFuture<T> failed = new CompletableFuture<>();
    failed.completeExceptionally(e);
    return failed;
  }
}
