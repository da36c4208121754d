package dev.oncely.examples.load;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.EventCounter;
import dev.oncely.client.event.IntentListener;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.persistence.SqliteIntentStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * Drives a numbered set of payment intents through {@link IdempotentClient} with a durable store,
 * {@code concurrency} at a time. Intent {@code i} (0-based) is a {@code POST} to the target with
 * body {@code {"amount":<1000+i>,"currency":"JPY","customer":"c-<i>","order":"o-<i>"}} and
 * business id {@code o-<i>}; its key is minted when the intent is first recorded and lives in the
 * store from then on.
 *
 * <p>Because every intent is looked up by its business id before it is sent, {@link Mode#RUN} on a
 * store that already holds the run (and {@link Mode#RESUME} after a crash) drives only what is
 * unfinished: finished intents report their stored outcome without any I/O, unfinished ones continue
 * with their stored key and body, intents never recorded are recorded and sent.
 *
 * <p>The dialect is {@code ietf} or {@code stripe}; with {@link LoadSettings#statusUrlResolver()}
 * set it also reads the status URL of a {@code 202} without {@code Location} from the body, so
 * such an intent is polled instead of resent blindly until it parks {@code NO_STATUS_URL}.
 */
public final class LoadDriver {
  /** The operation every intent is recorded under. */
  public static final String OPERATION = "create-payment";
  /** The scope every intent is recorded under. */
  public static final String SCOPE = "default";

  /** Whether the store must be new-or-matching ({@code run}) or must hold a run ({@code resume}). */
  public enum Mode {
    /** Start a run, or report and continue the same run already in the store. */
    RUN,
    /** Finish the run in the store; fails if the store holds none. */
    RESUME
  }

  private LoadDriver() {}

  /** The request body of intent {@code i}. */
  public static String paymentBody(int i) {
    return "{\"amount\":" + (1000 + i) + ",\"currency\":\"JPY\",\"customer\":\"c-" + i
        + "\",\"order\":\"o-" + i + "\"}";
  }

  /** The spec of intent {@code i}: a fresh key, which the store's record overrides if it exists. */
  public static IntentSpec paymentIntent(String target, int i) {
    return IntentSpec.builder()
        .operation(OPERATION)
        .scope(SCOPE)
        .post(target)
        .jsonBody(paymentBody(i))
        .businessId("o-" + i)
        .build();
  }

  /**
   * Runs or resumes, printing progress lines to {@code progress} every {@code progressEvery}.
   *
   * @return the report; the caller prints it and picks the exit code
   * @throws LoadSetupException if the store directory does not fit the mode and options or
   *     cannot be opened; nothing was sent
   * @throws InterruptedException if interrupted while waiting for the drives
   */
  public static LoadReport drive(LoadSettings settings, Mode mode, PrintStream progress,
      Duration progressEvery) throws LoadSetupException, InterruptedException {
    RunManifest manifest = mode == Mode.RUN
        ? RunManifest.createOrMatch(settings)
        : RunManifest.requireExisting(settings);
    String label = mode.name().toLowerCase(Locale.ROOT);
    EventCounter events = new EventCounter();
    RetryCauses causes = new RetryCauses();
    Tally tally = new Tally();
    long started = System.nanoTime();
    try (IntentStore store = open(manifest.engine(), settings.storeDir());
        Entry entry = settings.interceptor()
            ? new InterceptorEntry(settings, store, IntentListener.all(events, causes))
            : new IntentApiEntry(client(settings, store, IntentListener.all(events, causes)))) {
      progress.println(label + ": store " + settings.storeDir().resolve(manifest.engine().fileName())
          + " open after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
      ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(daemon());
      ticker.scheduleAtFixedRate(
          () -> progress.println(label + ": " + tally.line(manifest.intents(), events)),
          progressEvery.toMillis(), progressEvery.toMillis(), TimeUnit.MILLISECONDS);
      try {
        entry.resumeUnfinished();
        driveAll(entry, manifest, settings.concurrency(), tally, progress, label);
      } finally {
        ticker.shutdownNow();
      }
    }
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    progress.println(label + ": " + tally.line(manifest.intents(), events) + " in " + elapsedMs
        + " ms" + tally.pendingReasons());
    return new LoadReport(manifest.intents(), tally.completed.sum(), tally.rejected.sum(),
        tally.pending.sum(), tally.conflicts.sum(), tally.reconcile.sum(), tally.errors.sum(),
        events.attempts(), events.retries(), events.accepted(), events.inProgress(), elapsedMs,
        causes.snapshot());
  }

  private static void driveAll(Entry entry, RunManifest manifest, int concurrency,
      Tally tally, PrintStream progress, String label) throws InterruptedException {
    AtomicInteger next = new AtomicInteger();
    AtomicBoolean errorShown = new AtomicBoolean();
    ExecutorService workers = Executors.newFixedThreadPool(concurrency, daemon());
    for (int w = 0; w < concurrency; w++) {
      workers.execute(() -> {
        for (int i = next.getAndIncrement(); i < manifest.intents(); i = next.getAndIncrement()) {
          try {
            tally.add(entry.drive(manifest.target(), i));
          } catch (RuntimeException e) {
            tally.errors.increment();
            if (errorShown.compareAndSet(false, true)) {
              progress.println(label + ": intent o-" + i + " could not be driven: " + e);
            }
          }
        }
      });
    }
    workers.shutdown();
    try {
      workers.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
    } finally {
      workers.shutdownNow();
    }
  }

  private static IntentStore open(LoadSettings.StoreEngine engine, Path dir)
      throws LoadSetupException {
    Path file = dir.resolve(engine.fileName());
    try {
      return engine == LoadSettings.StoreEngine.MAPDB
          ? MapDbIntentStore.open(file)
          : SqliteIntentStore.open(file);
    } catch (StoreLockedException e) {
      throw new LoadSetupException("store " + file + " is open in another process", e);
    } catch (StoreException e) {
      throw new LoadSetupException("cannot open store " + file + ": " + e.getMessage(), e);
    }
  }

  private static IdempotentClient client(LoadSettings s, IntentStore store,
      IntentListener listener) {
    OkHttpClient http = new OkHttpClient.Builder()
        .connectionPool(new ConnectionPool(s.concurrency(), 1, TimeUnit.MINUTES))
        .build();
    return IdempotentClient.builder()
        .okHttpClient(http)
        .store(store)
        .dialect(dialect(s))
        .retryPolicy(policy(s))
        .retryBudget(s.retryBudget() ? RetryBudget.standard() : RetryBudget.unlimited())
        .listener(listener)
        .jitter(new Random(s.seed()))
        .build();
  }

  /** How intents reach the server: the intent API, or plain OkHttp with the interceptor. */
  private interface Entry extends AutoCloseable {
    /** Finishes what a crashed run left unfinished (the interceptor only; the client's own
     * lookups by business id continue those in {@link #drive}). */
    void resumeUnfinished();

    /** Drives intent {@code i} to its outcome. */
    IntentOutcome drive(String target, int i);

    @Override
    void close();
  }

  /** {@link IdempotentClient#execute}: a repeat of a recorded business id continues it. */
  private record IntentApiEntry(IdempotentClient client) implements Entry {
    @Override
    public void resumeUnfinished() {}

    @Override
    public IntentOutcome drive(String target, int i) {
      return client.execute(paymentIntent(target, i));
    }

    @Override
    public void close() {
      client.close();
    }
  }

  /**
   * An app on plain OkHttp: each intent a request tagged with an {@link IntentTag}; after a crash
   * {@link IdempotencyInterceptor#resumePending} re-drives what is unfinished through the same
   * client, and a re-issued request with a recorded business id gets its stored key.
   */
  private static final class InterceptorEntry implements Entry {
    private final IntentStore store;
    private final IdempotencyInterceptor interceptor;
    private final OkHttpClient http;

    InterceptorEntry(LoadSettings s, IntentStore store, IntentListener listener) {
      this.store = store;
      this.interceptor = IdempotencyInterceptor.builder()
          .store(store)
          .dialect(dialect(s))
          .retryPolicy(policy(s))
          .retryBudget(s.retryBudget() ? RetryBudget.standard() : RetryBudget.unlimited())
          .listener(listener)
          .jitter(new Random(s.seed()))
          .build();
      Dispatcher dispatcher = new Dispatcher();
      dispatcher.setMaxRequests(s.concurrency());
      dispatcher.setMaxRequestsPerHost(s.concurrency());
      this.http = new OkHttpClient.Builder()
          .dispatcher(dispatcher)
          .connectionPool(new ConnectionPool(s.concurrency(), 1, TimeUnit.MINUTES))
          .addInterceptor(interceptor)
          .addNetworkInterceptor(interceptor.networkInterceptor())
          .build();
    }

    @Override
    public void resumeUnfinished() {
      for (java.util.concurrent.CompletableFuture<IntentOutcome> f
          : interceptor.resumePending(http, outcome -> { })) {
        f.join();
      }
    }

    @Override
    public IntentOutcome drive(String target, int i) {
      Request request = new Request.Builder().url(target)
          .tag(IntentTag.class, IntentTag.builder().operation(OPERATION).scope(SCOPE)
              .businessId("o-" + i).build())
          .post(RequestBody.create(paymentBody(i), MediaType.get("application/json")))
          .build();
      try (Response response = http.newCall(request).execute()) {
        response.body().bytes();
      } catch (IOException e) {
        // The record says what is known; an IOException is "no answer", never a failure.
      }
      return store.findByBusinessId(SCOPE, OPERATION, "o-" + i).map(IntentOutcome::of)
          .orElseThrow(() -> new IllegalStateException("intent o-" + i + " has no record"));
    }

    @Override
    public void close() {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
  }

  /**
   * The dialect named by {@code --dialect}, finding a {@code 202}'s status URL in its body when
   * {@code --status-url-pointer} and {@code --status-url-template} are given.
   */
  private static Dialect dialect(LoadSettings s) {
    Dialect base = s.dialect().equals("stripe") ? Dialects.stripe() : Dialects.ietf();
    return DialectWithStatusUrl.of(base, s.statusUrlResolver());
  }

  private static RetryPolicy policy(LoadSettings s) {
    return RetryPolicy.builder()
        .maxAttempts(s.maxAttempts())
        .maxDelay(s.maxDelay())
        .attemptTimeout(s.attemptTimeout())
        .deadline(s.deadline())
        .build();
  }

  private static ThreadFactory daemon() {
    AtomicLong n = new AtomicLong();
    return r -> {
      Thread t = new Thread(r, "oncely-load-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Outcomes by kind, as they arrive. */
  private static final class Tally {
    final LongAdder completed = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder conflicts = new LongAdder();
    final LongAdder pending = new LongAdder();
    final LongAdder reconcile = new LongAdder();
    final LongAdder errors = new LongAdder();
    final Map<PendingReason, LongAdder> pendingBy = new ConcurrentHashMap<>();

    void add(IntentOutcome outcome) {
      if (outcome instanceof IntentOutcome.Completed) {
        completed.increment();
      } else if (outcome instanceof IntentOutcome.Rejected) {
        rejected.increment();
      } else if (outcome instanceof IntentOutcome.KeyConflict) {
        conflicts.increment();
      } else if (outcome instanceof IntentOutcome.Pending p) {
        pending.increment();
        pendingBy.computeIfAbsent(p.reason(), r -> new LongAdder()).increment();
      } else {
        reconcile.increment();
      }
    }

    String pendingReasons() {
      if (pendingBy.isEmpty()) {
        return "";
      }
      StringBuilder out = new StringBuilder("; pending by reason:");
      new TreeMap<>(pendingBy).forEach((r, n) -> out.append(' ').append(r).append('=').append(n));
      return out.toString();
    }

    String line(int intents, EventCounter events) {
      long done = completed.sum() + rejected.sum() + conflicts.sum() + pending.sum()
          + reconcile.sum() + errors.sum();
      return done + "/" + intents + " driven: completed " + completed.sum() + ", rejected "
          + rejected.sum() + ", conflicts " + conflicts.sum() + ", pending " + pending.sum()
          + ", reconcile " + reconcile.sum() + ", errors " + errors.sum() + "; attempts "
          + events.attempts() + ", retries " + events.retries() + ", 202s " + events.accepted()
          + ", 409s " + events.inProgress();
    }
  }
}
