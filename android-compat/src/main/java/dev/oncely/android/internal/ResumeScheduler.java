package dev.oncely.android.internal;

import android.app.job.JobInfo;
import android.app.job.JobScheduler;
import android.content.ComponentName;
import android.content.Context;
import android.util.Log;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps one persisted {@link JobScheduler} job for the intents this process may not finish: due
 * at the earliest next attempt of any unfinished intent, with a network constraint, and cancelled
 * when none is left. An unfinished intent without a next-attempt time (being driven, or cut off by
 * a crash) is due {@link #IN_FLIGHT_GRACE} after its last update, so a live drive does not wake
 * the job. Requests are coalesced on {@code executor}; the job is rescheduled only when its due
 * time changes.
 */
public final class ResumeScheduler {
  /** How long after its last update an unfinished intent without a next attempt is due. */
  public static final Duration IN_FLIGHT_GRACE = Duration.ofMinutes(1);

  private static final String TAG = "OncelyResume";

  private final JobScheduler jobs;
  private final ComponentName service;
  private final int jobId;
  private final IntentStore store;
  private final Clock clock;
  private final Executor executor;
  private final AtomicBoolean requested = new AtomicBoolean();
  private Instant scheduledDue;

  /**
   * @param service the {@code JobService} that resumes, declared in the app's manifest
   * @param jobId the job's id, unique within the app
   */
  public ResumeScheduler(Context context, ComponentName service, int jobId, IntentStore store,
      Clock clock, Executor executor) {
    this.jobs = context.getSystemService(JobScheduler.class);
    this.service = service;
    this.jobId = jobId;
    this.store = store;
    this.clock = clock;
    this.executor = executor;
  }

  /** Asks for a reschedule on the executor; requests made before it runs are served by one. */
  public void request() {
    if (requested.compareAndSet(false, true)) {
      try {
        executor.execute(() -> {
          requested.set(false);
          reschedule();
        });
      } catch (RuntimeException closed) {
        requested.set(false);
      }
    }
  }

  /**
   * Schedules the job for the earliest due unfinished intent, or cancels it when none is left.
   * Failures are logged (class names only), never thrown: the next request tries again.
   */
  public synchronized void reschedule() {
    try {
      Instant due = earliestDue(store.listUnfinished());
      if (due == null) {
        jobs.cancel(jobId);
        scheduledDue = null;
        return;
      }
      if (due.equals(scheduledDue) && jobs.getPendingJob(jobId) != null) {
        return;
      }
      long delay = Math.max(0, Duration.between(clock.instant(), due).toMillis());
      JobInfo job = new JobInfo.Builder(jobId, service)
          .setRequiredNetworkType(JobInfo.NETWORK_TYPE_ANY)
          .setPersisted(true)
          .setMinimumLatency(delay)
          .build();
      if (jobs.schedule(job) == JobScheduler.RESULT_SUCCESS) {
        scheduledDue = due;
      } else {
        Log.w(TAG, "JobScheduler refused the background resume job");
      }
    } catch (RuntimeException e) {
      Log.w(TAG, "cannot schedule the background resume job: " + e.getClass().getName());
    }
  }

  /** The earliest time any of {@code unfinished} is due, or null if the list is empty. */
  static Instant earliestDue(List<IntentRecord> unfinished) {
    Instant earliest = null;
    for (IntentRecord r : unfinished) {
      Instant due = r.nextAttemptAt() != null ? r.nextAttemptAt()
          : r.updatedAt().plus(IN_FLIGHT_GRACE);
      if (earliest == null || due.isBefore(earliest)) {
        earliest = due;
      }
    }
    return earliest;
  }
}
