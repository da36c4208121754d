package dev.oncely.client.internal.http;

import dev.oncely.client.internal.DaemonThreads;
import dev.oncely.client.internal.drive.Drive;
import dev.oncely.client.internal.drive.DriveEnd;
import dev.oncely.client.internal.drive.DriveLoop;
import dev.oncely.client.internal.drive.DriveOwner;
import dev.oncely.client.internal.drive.DriveRegistry;
import dev.oncely.client.internal.drive.DriveRun;
import dev.oncely.client.internal.drive.DriveSettings;
import dev.oncely.client.internal.drive.IntentDriver;
import dev.oncely.client.internal.drive.ResumeQueue;
import dev.oncely.client.internal.Defaults;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.PendingReason;
import dev.oncely.client.StoreException;
import dev.oncely.client.UnfinishedEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;

/**
 * The interceptor's resumes: drives of stored records through the app's own client, with no app
 * caller waiting on a thread. Each drive is the one {@link DriveLoop} on a {@link ResumeWire} (one
 * call through the app's client per attempt), run by {@link DriveRun#async}: a wait (backoff,
 * {@code Retry-After}, a {@code 409} in progress, a {@code 202} poll) is a timer, so a backlog the
 * server sheds drains at the server's pace, not at the pace of a few blocked threads. At most
 * {@value #ATTEMPTS_AT_ONCE} attempts run at once (the threads of its executor); the backlog is
 * started through the {@link ResumeQueue} with the intent API's limits, the rest waiting as ids. A drive of the same intent already running in this process (a live call
 * of it) is never doubled: the resume starts once it ended. Thread-safe.
 */
public final class ResumeDrives {
  /**
   * Attempts of resumed drives on the app's client at once: the executor's threads, as many as
   * the intent API's default driver threads (a thread is held by an attempt and by the durable
   * writes around it, never by a wait).
   */
  public static final int ATTEMPTS_AT_ONCE = 16;

  private final DriveSettings settings;
  private final DriveOwner owner;
  private final ThreadPoolExecutor executor;

  /** Resumes for the interceptor whose settings and owner these are. */
  public ResumeDrives(DriveSettings settings, DriveOwner owner) {
    this.settings = settings;
    this.owner = owner;
    this.executor = new ThreadPoolExecutor(ATTEMPTS_AT_ONCE, ATTEMPTS_AT_ONCE, 30,
        TimeUnit.SECONDS, new LinkedBlockingQueue<>(), new DaemonThreads("oncely-resume"));
    executor.allowCoreThreadTimeOut(true);
  }

  /**
   * Resumes every unfinished record of the store through {@code client}, oldest first, with the
   * intent API's limits ({@link Defaults#RESUMES_STARTING_AT_ONCE} starting, {@link
   * Defaults#RESUMES_AT_ONCE} under way); each record is read when its drive starts.
   *
   * @return one future per unfinished record, in the store's order
   * @throws StoreException if the store cannot list the records
   */
  public List<CompletableFuture<IntentOutcome>> resumeAll(Call.Factory client) {
    List<IntentId> ids = new ArrayList<>();
    for (UnfinishedEntry entry : settings.store().listUnfinishedIds()) {
      ids.add(entry.id());
    }
    return ResumeQueue.run(ids, Defaults.RESUMES_STARTING_AT_ONCE,
        Defaults.RESUMES_AT_ONCE, id -> started(client, id));
  }

  /**
   * Drives the stored record of {@code id} through {@code client}; while a drive of it runs in
   * this process, after that drive ended.
   *
   * @return a future completed with the outcome, or exceptionally with a {@link StoreException}
   *     if the store has no such record
   */
  public CompletableFuture<IntentOutcome> resume(Call.Factory client, IntentId id) {
    return started(client, id).outcome();
  }

  /** The drive of {@code id}, started: its outcome, and when it first gives its thread back. */
  private ResumeQueue.Started started(Call.Factory client, IntentId id) {
    DriveRegistry.Entry entry = DriveRegistry.process().enter(settings.store(), id, owner, null);
    if (entry.drive() == null) {
      return ResumeQueue.Started.untilEnd(CompletableFuture.completedFuture(
          IntentDriver.outcomeOf(id, closedBeforeStart())));
    }
    if (!entry.acquired()) {
      // Another drive of the intent runs here (a live call of it): once it ended, this resume
      // drives what it left, as asked; a record it finished completes from the store, no I/O.
      return ResumeQueue.Started.untilEnd(entry.drive().ended().handle((end, error) -> null)
          .thenCompose(ended -> resume(client, id)));
    }
    Drive mine = entry.drive();
    try {
      executor.execute(() -> start(mine, client));
    } catch (RejectedExecutionException e) {
      mine.finish(closedBeforeStart());
    }
    return new ResumeQueue.Started(IntentDriver.outcome(id, mine.ended()), mine.yielded());
  }

  /** Stops taking new work; running drives have been stopped by the owner's close. */
  public void shutdown() {
    executor.shutdown();
  }

  /** Reads the record of a drive this process now owns and runs it. */
  private void start(Drive mine, Call.Factory client) {
    // The owner's flag is set before its drives are told to stop: a drive whose turn comes
    // while the owner closes must not claim its record.
    if (mine.stopRequested() != null || owner.stopped() != null) {
      mine.finish(closedBeforeStart());
      return;
    }
    Optional<IntentRecord> record = IntentDriver.readForResume(mine, settings.store());
    if (record.isEmpty()) {
      return;
    }
    ResumeWire wire = new ResumeWire(client, owner);
    DriveRun.async(mine, DriveLoop.of(settings, wire, record.get(), false, false), wire,
        settings, executor);
  }

  private DriveEnd closedBeforeStart() {
    return new DriveEnd(DriveEnd.Kind.PARKED, null, null, null, PendingReason.INTERRUPTED,
        (owner.stopped() != null ? owner.stopped() : "the interceptor was closed")
        + " before this resume started; nothing was sent and the record is resumable", null,
        null);
  }
}
