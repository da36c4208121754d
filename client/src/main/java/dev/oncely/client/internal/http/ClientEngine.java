package dev.oncely.client.internal.http;

import dev.oncely.client.HeaderProvider;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.InvalidIntentException;
import dev.oncely.client.IntentTag;
import dev.oncely.client.UnfinishedEntry;
import dev.oncely.client.internal.DaemonThreads;
import dev.oncely.client.internal.Defaults;
import dev.oncely.client.internal.drive.StoredOutcomes;
import dev.oncely.client.internal.drive.Drive;
import dev.oncely.client.internal.drive.DriveOwner;
import dev.oncely.client.internal.drive.DriveSession;
import dev.oncely.client.internal.drive.DriveSettings;
import dev.oncely.client.internal.drive.IntentDriver;
import dev.oncely.client.internal.drive.RecordKeeper;
import dev.oncely.client.internal.drive.ResumeQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.OkHttpClient;

/**
 * The intent API's engine behind {@code IdempotentClient}: its {@link DriveSession}, the two ways
 * a caller goes through it (blocking on the caller's thread, or on the client's executor), the
 * client's own attempts ({@link AttemptBridge}) and its close. The facade only checks arguments
 * and builds candidates. Thread-safe.
 */
public final class ClientEngine {
  private final DriveOwner owner = new DriveOwner("the client");
  private final DriveSession session;
  private final ExecutorService ownedExecutor;
  private final DriveSession.Plan blocking;
  private final DriveSession.Plan async;

  /**
   * An engine over {@code settings}; its attempts go through {@code http} (the client's own copy,
   * see {@link #ownCopy}) with send-time {@code headers}. Drives of {@code submit} and resumes
   * run on {@code executor}, or, when it is null, on a pool of {@code driverThreads} daemon
   * threads of the engine's own, shut down by {@link #close}.
   */
  public ClientEngine(DriveSettings settings, Call.Factory http, HeaderProvider headers,
      Executor executor, int driverThreads) {
    this.session = new DriveSession(settings, owner);
    EngineConfig config = new EngineConfig(settings, http, headers, owner);
    if (executor == null) {
      ThreadPoolExecutor pool = new ThreadPoolExecutor(driverThreads, driverThreads,
          30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), new DaemonThreads("oncely-driver"));
      pool.allowCoreThreadTimeOut(true);
      this.ownedExecutor = pool;
      executor = pool;
    } else {
      this.ownedExecutor = null;
    }
    this.blocking = DriveSession.Plan.blocking(record -> new AttemptBridge(config));
    this.async = DriveSession.Plan.async(executor, record -> new AttemptBridge(config));
  }

  /**
   * The copy of the app's client the engine sends with: the engine counts, budgets and reports
   * every resend itself, so OkHttp must not add silent ones (they would still carry the same
   * key, but would hide from the policy); and a redirect of an unsafe request is judged by the
   * engine, never followed (OkHttp would turn a POST into a GET or send the body to another
   * origin).
   */
  public static OkHttpClient ownCopy(OkHttpClient app) {
    return app.newBuilder()
        .retryOnConnectionFailure(false)
        .followRedirects(false)
        .followSslRedirects(false)
        .build();
  }

  /** The settings every drive runs with. */
  public DriveSettings settings() {
    return session.settings();
  }

  /**
   * Refuses a spec that sets the dialect's key header itself: the key belongs to the SDK.
   *
   * @throws InvalidIntentException naming the header
   */
  public void checkKeyHeaderUnset(IntentSpec spec) {
    String keyHeader = settings().dialect().keyHeader();
    for (String name : spec.headers().keySet()) {
      if (name.equalsIgnoreCase(keyHeader)) {
        throw new InvalidIntentException("header", "'" + name + "' is the dialect's key header;"
            + " the key belongs to the SDK and is set from the spec's key strategy");
      }
    }
  }

  /** The record {@code spec} is stored as, in {@code state}, with this engine's settings. */
  public IntentRecord candidate(IntentSpec spec, IntentState state) {
    return RecordKeeper.fresh(settings(), state)
        .id(spec.id())
        .businessId(spec.businessId())
        .method(spec.method())
        .url(spec.url())
        .headers(spec.headers())
        .body(spec.body(), spec.mediaType())
        .fingerprint(spec.fingerprint())
        .keyWireForm(settings().dialect().keyHeader(),
            settings().dialect().formatKey(spec.key()))
        .traceContext(spec.traceContext())
        .retryPolicy(spec.retryPolicy())
        .build();
  }

  /** Admits {@code candidate} and drives it on the calling thread; the outcome is stored. */
  public CompletableFuture<IntentOutcome> execute(IntentRecord candidate) {
    return IntentDriver.outcome(candidate.id(), session.admit(candidate, blocking));
  }

  /** Admits {@code candidate} and drives it on the executor. */
  public CompletableFuture<IntentOutcome> submit(IntentRecord candidate) {
    return IntentDriver.outcome(candidate.id(), session.admit(candidate, async));
  }

  /** Drives the stored record of {@code id} on the executor, or joins its running drive. */
  public CompletableFuture<IntentOutcome> resume(IntentId id) {
    return IntentDriver.outcome(id, session.resume(id, async));
  }

  /**
   * Drives every unfinished record of the store, oldest first, at most {@link
   * Defaults#RESUMES_STARTING_AT_ONCE} starting and {@link Defaults#RESUMES_AT_ONCE} not ended;
   * the rest wait as ids.
   */
  public List<CompletableFuture<IntentOutcome>> resumeAll() {
    List<IntentId> ids = new ArrayList<>();
    for (UnfinishedEntry entry : settings().store().listUnfinishedIds()) {
      ids.add(entry.id());
    }
    return ResumeQueue.run(ids, Defaults.RESUMES_STARTING_AT_ONCE, Defaults.RESUMES_AT_ONCE,
        this::resumeQueued);
  }

  /** The stored outcome of intent {@code id} (in progress while a drive of it runs here). */
  public Optional<IntentOutcome> outcomeOf(IntentId id) {
    return StoredOutcomes.byId(settings().store(), id);
  }

  /** The stored outcome of the intent {@code tag} names by its business id. */
  public Optional<IntentOutcome> outcomeOf(IntentTag tag) {
    return StoredOutcomes.byTag(settings().store(), tag);
  }

  private ResumeQueue.Started resumeQueued(IntentId id) {
    DriveSession.Started started = session.resumeStarted(id, async);
    return new ResumeQueue.Started(IntentDriver.outcome(id, started.ended()), started.freed());
  }

  /**
   * Stops every drive (calls on the wire canceled, waits ended), waits up to {@code grace} for
   * them to record how they stopped, then shuts the engine's own executor down; drives that never
   * ran (queued on an executor that is gone) end as not started rather than never.
   */
  public void close(Duration grace) {
    List<Drive> left = owner.close(grace);
    if (ownedExecutor != null) {
      ownedExecutor.shutdownNow();
      try {
        ownedExecutor.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (Drive drive : left) {
      drive.finish(session.closedBeforeStart());
    }
  }
}
