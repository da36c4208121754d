package dev.oncely.persistence.crash;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.persistence.internal.CommitHalts;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import okhttp3.OkHttpClient;

/**
 * The child JVM of the SDK kill tests: opens a durable store, resumes every unfinished intent with
 * {@link IdempotentClient#resumePending()}, then submits intents {@code 0..count-1} of {@link
 * SdkWorkload} (at most {@value #WINDOW} at a time); an intent a previous run already created is
 * found again by its business id or derived key, never created twice. It then resumes until nothing
 * is unfinished. The parent kills it at any moment.
 *
 * <p>Arguments: {@code <engine> <store path> <server base URL> <count> <seed>}. System properties
 * arm test-only crash points: {@value #HALT_ON_FIRST_SEND}{@code =<n>} halts when the first attempt
 * of intent n is about to be sent (its record is durable, nothing is on the wire);
 * {@value #HALT_BEFORE_OUTCOME}{@code =<n>} halts after intent n's answer was read and before its
 * outcome is stored ({@link OutcomeHaltingStore}); {@link CommitHalts#PROPERTY} and the MapDB
 * engine's points halt inside the engine ({@link CrashPoints}).
 *
 * <p>Output lines: {@code OPENED}; {@code RESUMING <k>}; {@code CREATED <n>} once intent n's record
 * is durable; {@code OUTCOME <n> <state>} once its outcome is stored; {@code ALLDONE}. Failures:
 * {@code OPEN-FAILED <why>} (exit 3), {@code ERROR <why>} (exit 5), {@code UNFINISHED <k>} (exit 6).
 */
public final class SdkCrashChild {
  static final String HALT_ON_FIRST_SEND = "oncely.crash.haltOnFirstSend";
  static final String HALT_BEFORE_OUTCOME = "oncely.crash.haltBeforeOutcome";
  static final int WINDOW = 8;
  private static final int DRIVERS = 8;
  private static final int RESUME_ROUNDS = 10;
  static final RetryPolicy POLICY = RetryPolicy.builder()
      .maxAttempts(40)
      .baseDelay(Duration.ofMillis(1))
      .maxDelay(Duration.ofMillis(20))
      .deadline(Duration.ofSeconds(60))
      .attemptTimeout(Duration.ofSeconds(10))
      .build();

  private SdkCrashChild() {}

  private static final java.util.Map<dev.oncely.client.IntentId, Integer> submitted =
      new java.util.concurrent.ConcurrentHashMap<>();

  public static void main(String[] args) throws Exception {
    CrashPoints.installFromSystemProperties();
    String engine = args[0];
    Path path = Path.of(args[1]);
    String baseUrl = args[2];
    int count = Integer.parseInt(args[3]);
    long seed = Long.parseLong(args[4]);
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    IntentStore durable = CrashEngines.openInChild(engine, path, out);
    String haltBeforeOutcome = System.getProperty(HALT_BEFORE_OUTCOME);
    IntentStore store = haltBeforeOutcome == null ? durable
        : new OutcomeHaltingStore(durable, SdkWorkload.order(Integer.parseInt(haltBeforeOutcome)));
    ExecutorService drivers = Executors.newFixedThreadPool(DRIVERS, r -> {
      Thread t = new Thread(r, "crash-driver");
      t.setDaemon(true);
      return t;
    });
    IdempotentClient client = IdempotentClient.builder()
        .okHttpClient(new OkHttpClient.Builder().connectTimeout(Duration.ofSeconds(5)).build())
        .store(store)
        .dialect(Dialects.ietf())
        .retryPolicy(POLICY)
        .retryBudget(RetryBudget.unlimited())
        .listener(IntentListener.all(haltOnFirstSend(store), event -> {
          if (event instanceof IntentEvent.Recorded recorded) {
            Integer n = submitted.get(recorded.id());
            if (n != null) {
              out.println("CREATED " + n);
            }
          }
        }))
        .executor(drivers)
        .jitter(new Random(seed))
        .build();
    try {
      int unfinished = run(client, store, baseUrl, count, out);
      if (unfinished > 0) {
        out.println("UNFINISHED " + unfinished);
        System.exit(6);
      }
    } catch (RuntimeException | Error e) {
      out.println("ERROR " + CrashEngines.oneLine(e));
      e.printStackTrace();
      System.exit(5);
    }
    client.close();
    durable.close();
    out.println("ALLDONE");
    System.exit(0);
  }

  /** Drives everything; returns how many intents are still unfinished at the end. */
  private static int run(IdempotentClient client, IntentStore store, String baseUrl, int count,
      PrintStream out) throws InterruptedException {
    List<CompletableFuture<IntentOutcome>> resumed = client.resumePending();
    out.println("RESUMING " + resumed.size());
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (CompletableFuture<IntentOutcome> f : resumed) {
      all.add(f.thenAccept(outcome -> report(store, outcome, out)));
    }
    Semaphore window = new Semaphore(WINDOW);
    for (int n = 0; n < count; n++) {
      window.acquire();
      // CREATED is printed when the record is durable (the Recorded event), not when submit()
      // returns: submit() does no store I/O on the calling thread.
      dev.oncely.client.IntentSpec spec = SdkWorkload.spec(baseUrl, n);
      submitted.put(spec.id(), n);
      CompletableFuture<IntentOutcome> f = client.submit(spec);
      all.add(f.whenComplete((outcome, failure) -> {
        window.release();
        if (outcome != null) {
          report(store, outcome, out);
        }
      }));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    for (int round = 0; round < RESUME_ROUNDS && !store.listUnfinished().isEmpty(); round++) {
      List<CompletableFuture<IntentOutcome>> again = client.resumePending();
      CompletableFuture.allOf(again.stream()
          .map(f -> f.thenAccept(outcome -> report(store, outcome, out)))
          .toArray(CompletableFuture[]::new)).join();
    }
    return store.listUnfinished().size();
  }

  private static void report(IntentStore store, IntentOutcome outcome, PrintStream out) {
    IntentRecord record = store.get(outcome.id()).orElseThrow(() ->
        new IllegalStateException("an outcome without a record: " + outcome.id()));
    out.println("OUTCOME " + SdkWorkload.orderNumber(record.businessId()) + " " + outcome.state());
  }

  private static IntentListener haltOnFirstSend(IntentStore store) {
    String n = System.getProperty(HALT_ON_FIRST_SEND);
    if (n == null) {
      return IntentListener.NONE;
    }
    String order = SdkWorkload.order(Integer.parseInt(n));
    return event -> {
      if (event instanceof IntentEvent.AttemptStarted started && started.attempt() == 1
          && !started.poll() && isOrder(store, started.id(), order)) {
        Runtime.getRuntime().halt(CommitHalts.HALT_STATUS);
      }
    };
  }

  private static boolean isOrder(IntentStore store, IntentId id, String order) {
    return store.get(id).map(r -> order.equals(r.businessId())).orElse(false);
  }
}
