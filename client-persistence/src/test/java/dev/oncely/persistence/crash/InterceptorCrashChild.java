package dev.oncely.persistence.crash;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.IntentEvent;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The child JVM of the interceptor kill tests: the same workload and output lines as {@link
 * SdkCrashChild}, but through plain OkHttp only: an {@code OkHttpClient} with the
 * {@link IdempotencyInterceptor} and a durable store, each payment a request tagged with an
 * {@link IntentTag} (business id {@code order-n}). It first resumes what a previous run left
 * unfinished through that same client ({@link IdempotencyInterceptor#resumePending}), then issues
 * intents {@code 0..count-1} (at most {@value #WINDOW} at a time, with {@code enqueue}), then
 * resumes until nothing is unfinished. {@code CREATED <n>} is printed on the interceptor's
 * {@code Recorded} event, when the record is durable.
 *
 * <p>Arguments: {@code <engine> <store path> <server base URL> <count> <seed>}. The {@code -D}
 * arguments it was started with may arm crash points inside the engine ({@link CrashPoints}).
 */
public final class InterceptorCrashChild {
  private static final int WINDOW = 8;
  private static final int RESUME_ROUNDS = 10;

  private InterceptorCrashChild() {}

  public static void main(String[] args) throws Exception {
    CrashPoints.installFromSystemProperties();
    String engine = args[0];
    Path path = Path.of(args[1]);
    String baseUrl = args[2];
    int count = Integer.parseInt(args[3]);
    long seed = Long.parseLong(args[4]);
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    IntentStore store = CrashEngines.openInChild(engine, path, out);
    IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder()
        .store(store)
        .dialect(Dialects.ietf())
        .retryPolicy(SdkCrashChild.POLICY)
        .retryBudget(RetryBudget.unlimited())
        .jitter(new Random(seed))
        .listener(event -> {
          if (event instanceof IntentEvent.Recorded recorded) {
            store.get(recorded.id()).ifPresent(r ->
                out.println("CREATED " + SdkWorkload.orderNumber(r.businessId())));
          }
        })
        .build();
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequests(64);
    dispatcher.setMaxRequestsPerHost(64);
    OkHttpClient http = new OkHttpClient.Builder()
        .dispatcher(dispatcher)
        .connectTimeout(Duration.ofSeconds(5))
        .addInterceptor(interceptor)
        .addNetworkInterceptor(interceptor.networkInterceptor())
        .build();
    try {
      resumeAll(interceptor, http, store, out);
      issueAll(http, store, baseUrl, count, out);
      for (int round = 0; round < RESUME_ROUNDS && !store.listUnfinished().isEmpty(); round++) {
        resumeAll(interceptor, http, store, out);
      }
      int unfinished = store.listUnfinished().size();
      if (unfinished > 0) {
        out.println("UNFINISHED " + unfinished);
        System.exit(6);
      }
    } catch (RuntimeException | Error e) {
      out.println("ERROR " + CrashEngines.oneLine(e));
      e.printStackTrace();
      System.exit(5);
    }
    http.dispatcher().executorService().shutdown();
    store.close();
    out.println("ALLDONE");
    System.exit(0);
  }

  private static void resumeAll(IdempotencyInterceptor interceptor, OkHttpClient http,
      IntentStore store, PrintStream out) {
    List<CompletableFuture<IntentOutcome>> resumed =
        interceptor.resumePending(http, outcome -> report(store, outcome, out));
    out.println("RESUMING " + resumed.size());
    CompletableFuture.allOf(resumed.toArray(CompletableFuture[]::new)).join();
  }

  private static void issueAll(OkHttpClient http, IntentStore store, String baseUrl, int count,
      PrintStream out) throws InterruptedException {
    Semaphore window = new Semaphore(WINDOW);
    CountDownLatch done = new CountDownLatch(count);
    for (int n = 0; n < count; n++) {
      window.acquire();
      int order = n;
      http.newCall(request(baseUrl, n)).enqueue(new Callback() {
        @Override
        public void onFailure(Call call, IOException e) {
          finished();
        }

        @Override
        public void onResponse(Call call, Response response) {
          response.close();
          finished();
        }

        private void finished() {
          store.findByBusinessId(SdkWorkload.SCOPE, SdkWorkload.OPERATION,
              SdkWorkload.order(order)).ifPresent(r ->
                  out.println("OUTCOME " + order + " " + r.state()));
          window.release();
          done.countDown();
        }
      });
    }
    if (!done.await(SdkCrashRig.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      throw new IllegalStateException("calls did not finish in time");
    }
  }

  /** Intent {@code n} as the app would send it: the spec's bytes and headers, tagged. */
  static Request request(String baseUrl, int n) {
    IntentSpec spec = SdkWorkload.spec(baseUrl, n);
    Request.Builder request = new Request.Builder().url(spec.url())
        .tag(IntentTag.class, IntentTag.builder().operation(spec.operation()).scope(spec.scope())
            .businessId(spec.businessId()).keyStrategy(SdkWorkload.keyStrategy(n)).build())
        .post(RequestBody.create(spec.body(), MediaType.get(spec.mediaType())));
    spec.headers().forEach((name, values) -> values.forEach(v -> request.addHeader(name, v)));
    return request.build();
  }

  private static void report(IntentStore store, IntentOutcome outcome, PrintStream out) {
    IntentRecord record = store.get(outcome.id()).orElse(null);
    if (record != null) {
      out.println("OUTCOME " + SdkWorkload.orderNumber(record.businessId()) + " "
          + outcome.state());
    }
  }
}
