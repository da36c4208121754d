package dev.oncely.android;

import android.app.job.JobParameters;
import android.app.job.JobService;
import android.util.Log;

/**
 * The background resume job: when the persisted job that {@link OncelyAndroid} keeps scheduled
 * fires (the earliest unfinished intent is due and a network exists, even after a reboot or with
 * the app not opened), it calls {@link OncelyAndroid#resumeInBackground()} on the instance the
 * app's {@code Application.onCreate()} started, and finishes when that resume has. The resume
 * reschedules the job for whatever is still unfinished, or cancels it.
 *
 * <p>Declare it in the app's manifest:
 * <pre>{@code
 * <uses-permission android:name="android.permission.RECEIVE_BOOT_COMPLETED"/>
 * <service android:name="dev.oncely.android.OncelyResumeJobService"
 *     android:permission="android.permission.BIND_JOB_SERVICE"
 *     android:exported="false"/>
 * }</pre>
 */
public final class OncelyResumeJobService extends JobService {
  /** The job id this library uses; keep it free in the app's own jobs. */
  public static final int JOB_ID = 0x0ce1;

  private static final String TAG = "OncelyResume";

  /** Creates the service (the system does). */
  public OncelyResumeJobService() {}

  @Override
  public boolean onStartJob(JobParameters params) {
    OncelyAndroid oncely = OncelyAndroid.running();
    if (oncely == null) {
      Log.w(TAG, "resume job ran but OncelyAndroid was not started in Application.onCreate()");
      return false;
    }
    oncely.resumeInBackground().whenComplete((outcomes, failure) -> {
      if (failure != null) {
        Log.w(TAG, "background resume failed: " + failure.getClass().getName());
      }
      jobFinished(params, failure != null);
    });
    return true;
  }

  /** The system stopped the job early: ask for it again; drives already started keep going. */
  @Override
  public boolean onStopJob(JobParameters params) {
    return true;
  }
}
