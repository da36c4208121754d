package dev.oncely.android;

import android.content.ComponentName;
import android.content.Context;
import android.util.Log;
import dev.oncely.android.internal.ResumeScheduler;
import dev.oncely.android.internal.SchedulingStore;
import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.StoreException;
import java.io.File;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The SDK wired for an Android app: an {@link IdempotentClient} on an
 * {@link AndroidSqliteIntentStore} in {@link Context#getNoBackupFilesDir()} (so Auto Backup never
 * restores stale intents onto another device), a {@link ConnectivityNetworkGate} that pauses
 * attempts offline, and {@link LruRecordCacheFactory} instead of Caffeine. Pending intents are
 * resumed when it starts (after the OS killed the app), whenever the network comes back, and in
 * the background by a persisted {@link android.app.job.JobScheduler} job
 * ({@link OncelyResumeJobService}) that is due at the earliest next attempt of any unfinished
 * intent, needs a network, survives reboots, and is cancelled when nothing is left unfinished.
 * {@link #interceptor} puts Retrofit's (or any OkHttp client's) tagged calls on the same store and
 * under the same job. Thread-safe; create one per process, in {@code Application.onCreate()}.
 *
 * <pre>{@code
 * OncelyAndroid oncely = OncelyAndroid.start(context,
 *     IdempotentClient.builder().okHttpClient(okHttp));
 * CompletableFuture<IntentOutcome> outcome = oncely.client().submit(spec);
 * }</pre>
 *
 * <p>The store directory and files are made owner-only. Resumes run on a background thread of
 * this object, never on the caller's or the main thread. {@link #close()} stops the client, the
 * gate and the store.
 */
public final class OncelyAndroid implements AutoCloseable {
  /** The store file, relative to {@link Context#getNoBackupFilesDir()}. */
  public static final String STORE_FILE = "oncely/intents.db";

  private static final String TAG = "Oncely";

  private final AndroidSqliteIntentStore store;
  private final ExecutorService background;
  private static final AtomicReference<OncelyAndroid> RUNNING = new AtomicReference<>();

  private final ConnectivityNetworkGate gate;
  private final ResumeScheduler scheduler;
  private final SchedulingStore schedulingStore;
  private final IdempotentClient client;
  private final CompletableFuture<List<IntentOutcome>> resumedOnStart;

  private OncelyAndroid(Context context, IdempotentClient.Builder builder) {
    File file = new File(context.getNoBackupFilesDir(), STORE_FILE);
    File dir = file.getParentFile();
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new StoreException("cannot create the store directory " + dir);
    }
    OwnerOnly.restrict(dir);
    this.store = AndroidSqliteIntentStore.open(file);
    this.background = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "oncely-resume");
      t.setDaemon(true);
      return t;
    });
    try {
      for (String suffix : new String[] {"", "-wal", "-shm"}) {
        OwnerOnly.restrict(new File(file.getPath() + suffix));
      }
      this.gate = ConnectivityNetworkGate.builder(context)
          .onReconnect(background, this::resumeAfterReconnect)
          .register();
      this.scheduler = new ResumeScheduler(context,
          new ComponentName(context, OncelyResumeJobService.class),
          OncelyResumeJobService.JOB_ID, store, Clock.systemUTC(), background);
      this.schedulingStore = new SchedulingStore(store, scheduler);
      this.client = builder
          .store(schedulingStore)
          .networkGate(gate)
          .recordCacheFactory(new LruRecordCacheFactory())
          .build();
    } catch (RuntimeException e) {
      background.shutdownNow();
      store.close();
      throw e;
    }
    RUNNING.set(this);
    this.resumedOnStart = resumeInBackground();
  }

  /**
   * Opens the store, registers the network gate, builds the client from {@code client} (its store,
   * network gate and record cache factory are replaced by the Android ones) and starts resuming
   * the intents left unfinished by an earlier process.
   *
   * @throws NullPointerException if an argument is null
   * @throws StoreException if the store cannot be opened or is corrupted
   */
  public static OncelyAndroid start(Context context, IdempotentClient.Builder client) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(client, "client");
    return new OncelyAndroid(context.getApplicationContext() != null
        ? context.getApplicationContext() : context, client);
  }

  /** The instance started last in this process and not closed, or null; for the resume job. */
  static OncelyAndroid running() {
    return RUNNING.get();
  }

  /** The client; share it across the app. */
  public IdempotentClient client() {
    return client;
  }

  /** The durable store in {@code noBackupFilesDir}. */
  public AndroidSqliteIntentStore store() {
    return store;
  }

  /**
   * Builds an {@link IdempotencyInterceptor} for Retrofit or the app's own {@code OkHttpClient} on
   * this object's store and network gate ({@code interceptor}'s are replaced), so its tagged calls
   * ({@link dev.oncely.client.IntentTag}) are durable like the intent API's: every write keeps the
   * background job current, and {@link #resumePending()} (on start, on reconnect, in the
   * background job) drives its unfinished records with their stored keys and bytes through
   * {@link #client()}, whose {@code HeaderProvider} supplies credentials for the record's origin
   * (records never hold secrets). To resume them through the app's own client and its
   * interceptors instead, call {@link IdempotencyInterceptor#resumePending} with that client.
   *
   * @throws NullPointerException if {@code interceptor} is null
   */
  public IdempotencyInterceptor interceptor(IdempotencyInterceptor.Builder interceptor) {
    Objects.requireNonNull(interceptor, "interceptor");
    return interceptor.store(schedulingStore).networkGate(gate).build();
  }

  /** The gate that pauses attempts while the device is offline. */
  public ConnectivityNetworkGate networkGate() {
    return gate;
  }

  /** The resume started by {@link #start}: every intent an earlier process left unfinished. */
  public CompletableFuture<List<IntentOutcome>> resumedOnStart() {
    return resumedOnStart;
  }

  /**
   * Drives every unfinished intent again, on this object's background thread; intents already
   * being driven are joined, not driven twice.
   *
   * @return a future completed with the outcomes, oldest intent first, or failed with the
   *     {@link StoreException} that stopped the listing
   */
  public CompletableFuture<List<IntentOutcome>> resumePending() {
    CompletableFuture<List<IntentOutcome>> result = new CompletableFuture<>();
    try {
      background.execute(() -> {
        IdempotentClient current = client;
        if (current == null) {
          // A reconnect while start() is still building the client: its own resume follows.
          result.complete(new ArrayList<>());
          return;
        }
        try {
          List<CompletableFuture<IntentOutcome>> drives = current.resumePending();
          CompletableFuture.allOf(drives.toArray(new CompletableFuture<?>[0]))
              .whenComplete((done, failure) -> {
                if (failure != null) {
                  result.completeExceptionally(failure);
                  return;
                }
                List<IntentOutcome> outcomes = new ArrayList<>(drives.size());
                for (CompletableFuture<IntentOutcome> drive : drives) {
                  outcomes.add(drive.join());
                }
                result.complete(outcomes);
              });
        } catch (RuntimeException e) {
          result.completeExceptionally(e);
        }
      });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new IllegalStateException("OncelyAndroid is closed", e));
    }
    return result;
  }

  /**
   * Completes once the work queued on the background thread so far has run (a resume, a
   * reschedule a store write asked for): lets tests wait for it without polling.
   */
  CompletableFuture<Void> backgroundIdle() {
    return CompletableFuture.runAsync(() -> {}, background);
  }

  /**
   * The background entry point: {@link #resumePending()}, then the background job rescheduled
   * for what is still unfinished (or cancelled). {@link OncelyResumeJobService} calls it; so can a
   * WorkManager {@code Worker} (see docs/android.md).
   *
   * @return the outcomes of {@link #resumePending()}; the reschedule has run when it completes
   */
  public CompletableFuture<List<IntentOutcome>> resumeInBackground() {
    CompletableFuture<List<IntentOutcome>> done = new CompletableFuture<>();
    resumePending().whenComplete((outcomes, failure) -> {
      scheduler.reschedule();
      if (failure != null) {
        done.completeExceptionally(failure);
      } else {
        done.complete(outcomes);
      }
    });
    return done;
  }

  private void resumeAfterReconnect() {
    resumeInBackground().whenComplete((outcomes, failure) -> {
      if (failure != null) {
        Log.w(TAG, "resuming after reconnect failed: " + failure.getClass().getName());
      }
    });
  }

  /** Unregisters the gate, closes the client (unfinished intents stay resumable) and the store. */
  @Override
  public void close() {
    RUNNING.compareAndSet(this, null);
    gate.close();
    background.shutdownNow();
    client.close();
    store.close();
  }
}
