package dev.oncely.client.internal.http;

import dev.oncely.client.internal.DaemonThreads;
import dev.oncely.client.internal.drive.DriveSession;
import dev.oncely.client.internal.drive.DriveLoop;
import dev.oncely.client.internal.drive.DriveRun;
import dev.oncely.client.internal.drive.IntentDriver;
import dev.oncely.client.internal.drive.ResumeQueue;
import dev.oncely.client.internal.Defaults;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.StoreException;
import dev.oncely.client.UnfinishedEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
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

  private final DriveSession session;
  private final ThreadPoolExecutor executor;

  /** Resumes for the interceptor whose session this is. */
  public ResumeDrives(DriveSession session) {
    this.session = session;
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
    for (UnfinishedEntry entry : session.settings().store().listUnfinishedIds()) {
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

  /**
   * The drive of {@code id}, started: its outcome, and when it first gives its thread back.
   * Another drive of the intent running here (a live call of it) is never joined: once it ended,
   * this resume drives what it left, as asked; a record it finished completes from the store.
   */
  private ResumeQueue.Started started(Call.Factory client, IntentId id) {
    DriveSession.Started started = session.resumeStarted(id, new DriveSession.Plan(executor,
        false, record -> new ResumeWire(client, session.owner()), false, null));
    return new ResumeQueue.Started(IntentDriver.outcome(id, started.ended()), started.freed());
  }

  /** Stops taking new work; running drives have been stopped by the owner's close. */
  public void shutdown() {
    executor.shutdown();
  }
}
