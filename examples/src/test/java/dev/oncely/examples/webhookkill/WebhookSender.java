package dev.oncely.examples.webhookkill;

import dev.oncely.examples.webhookkill.WebhookPlan.Delivery;
import dev.oncely.examples.webhookkill.WebhookPlan.Kind;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A webhook sender over plain OkHttp, as a provider delivers: {@code concurrency} deliveries at
 * once, each {@code POST /webhooks/<source>} to a receiver of the fleet picked at random, signed
 * afresh on every attempt. A delivery that got no answer (connection refused while the receiver
 * is down, a connection cut by a kill) or a {@code 5xx} is retried, on another receiver when one
 * is up, after a backoff of at most a second or as soon as a receiver restarts, whichever comes
 * first (when no receiver is up at all, once one is); any other answer is final: a refusal
 * ({@code 4xx}) stores nothing, so the provider's later retries would get it again. When an
 * event's original delivery is answered {@code 2xx} and the plan says so, its redelivery is sent.
 * Retries are scheduled, never slept.
 *
 * <p>The plan is sent in waves: {@link #release} lets the next planned deliveries go, so a test
 * can keep the sender busy until its last kill (a provider's events come as they happen, not all
 * at once). {@link #awaitAnswers} and {@link #whenIdle} tell the test how far it got.
 */
final class WebhookSender implements AutoCloseable {
  private static final MediaType JSON = MediaType.get("application/json");
  private static final long MAX_BACKOFF_MILLIS = 1_000;

  private final ReceiverFleet fleet;
  private final WebhookPlan plan;
  private final ExecutorService pool;
  private final OkHttpClient http = new OkHttpClient.Builder()
      .connectTimeout(Duration.ofSeconds(2))
      .readTimeout(Duration.ofSeconds(30))
      // The sender retries by itself, and counts it.
      .retryOnConnectionFailure(false)
      .build();
  private final AtomicInteger outstanding = new AtomicInteger();
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
  private final AtomicInteger answered = new AtomicInteger();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong noAnswer = new AtomicLong();
  private final AtomicLong unavailable = new AtomicLong();
  private final AtomicLong noReceiverUp = new AtomicLong();
  /** Notified on every final answer. */
  private final Object progress = new Object();
  private final List<Runnable> idleListeners = new ArrayList<>();
  private int released;
  private volatile boolean allReleased;

  /** The final answer to one delivery, and how many attempts were sent for it. */
  record Answer(Delivery delivery, int status, String text, int attempts) {}

  WebhookSender(ReceiverFleet fleet, WebhookPlan plan, int concurrency) {
    this.fleet = fleet;
    this.plan = plan;
    AtomicInteger n = new AtomicInteger();
    this.pool = Executors.newFixedThreadPool(concurrency, r -> {
      Thread t = new Thread(r, "webhook-sender-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Starts sending the first {@code firstWave} planned deliveries (and the redeliveries they
   * cause); {@link #release} lets more go. The future completes once every planned delivery was
   * released and each has its final answer, or exceptionally if the sender itself failed.
   */
  CompletableFuture<Void> start(int firstWave) {
    outstanding.set(1); // held until every planned delivery is released
    release(firstWave);
    return done;
  }

  /** Lets the planned deliveries up to index {@code upTo} (exclusive) be sent. */
  void release(int upTo) {
    boolean all;
    synchronized (this) {
      int end = Math.min(upTo, plan.planned().size());
      for (; released < end; released++) {
        submit(plan.planned().get(released));
      }
      all = released == plan.planned().size() && !allReleased;
      allReleased |= all;
    }
    if (all) {
      finish();
    }
  }

  /**
   * Waits until {@code count} deliveries have their final answer, or the sender is idle (all it
   * may send is answered): returns whether the count was reached.
   */
  boolean awaitAnswers(int count, Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    synchronized (progress) {
      for (long left = max.toNanos(); answered.get() < count && !idle() && left > 0;
          left = deadline - System.nanoTime()) {
        TimeUnit.NANOSECONDS.timedWait(progress, left);
      }
      return answered.get() >= count;
    }
  }

  /** Runs {@code r} once the sender is idle (at once if it is now). */
  void whenIdle(Runnable r) {
    synchronized (progress) {
      if (!idle()) {
        idleListeners.add(r);
        return;
      }
    }
    r.run();
  }

  private boolean idle() {
    // 1: only the guard of start(), so nothing released is in flight.
    return outstanding.get() == 1 && !allReleased || done.isDone();
  }

  /** The final answers so far. */
  List<Answer> answers() {
    return List.copyOf(answers);
  }

  /**
   * Attempts sent; of them, those without an answer and those answered {@code 5xx}; and times a
   * delivery found no receiver up.
   */
  Map<String, Long> counts() {
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("attempts", attempts.get());
    counts.put("noAnswer", noAnswer.get());
    counts.put("answered5xx", unavailable.get());
    counts.put("noReceiverUp", noReceiverUp.get());
    return counts;
  }

  private void submit(Delivery d) {
    outstanding.incrementAndGet();
    pool.execute(() -> attempt(d, 0, null));
  }

  private void finish() {
    int left = outstanding.decrementAndGet();
    if (left == 0) {
      done.complete(null);
    }
    List<Runnable> woken = List.of();
    synchronized (progress) {
      progress.notifyAll();
      if (idle()) {
        woken = new ArrayList<>(idleListeners);
        idleListeners.clear();
      }
    }
    woken.forEach(Runnable::run);
  }

  /**
   * Sends {@code d} once more, {@code sent} attempts having been sent before; {@code failedOn} is
   * the receiver the last one failed on, or null.
   */
  private void attempt(Delivery d, int sent, ReceiverFleet.Target failedOn) {
    try {
      ReceiverFleet.Target target = fleet.pick(failedOn);
      if (target == null) {
        // No receiver is up (the one of a single-receiver fleet is restarting): what a sender
        // behind a load balancer sees as a 502, without the round trip. Sent again once one is.
        noReceiverUp.incrementAndGet();
        fleet.changeAfter(null).thenRunAsync(() -> attempt(d, sent, null), pool);
        return;
      }
      attempts.incrementAndGet();
      WebhookPlan.Signed signed = plan.sign(d, Instant.now());
      Request.Builder request = new Request.Builder()
          .url(target.baseUrl() + "webhooks/" + d.event().source())
          .post(RequestBody.create(signed.body(), JSON));
      signed.headers().forEach(request::header);
      int status;
      String text;
      try (Response r = http.newCall(request.build()).execute()) {
        status = r.code();
        text = r.body().string();
      } catch (IOException e) {
        noAnswer.incrementAndGet();
        retryLater(d, sent + 1, target, backoffAfter(sent + 1));
        return;
      }
      if (status >= 500) {
        unavailable.incrementAndGet();
        retryLater(d, sent + 1, target, backoffAfter(sent + 1));
        return;
      }
      answers.add(new Answer(d, status, text, sent + 1));
      answered.incrementAndGet();
      if (d.kind() == Kind.ORIGINAL && status / 100 == 2
          && plan.redeliveredAfterAnswer(d.event())) {
        submit(new Delivery(Kind.REDELIVERY, d.event()));
      }
      finish();
    } catch (RuntimeException | Error e) {
      done.completeExceptionally(e);
    }
  }

  /** The backoff after {@code sent} failed attempts: 50 ms doubling up to a second. */
  private static long backoffAfter(int sent) {
    return Math.min(MAX_BACKOFF_MILLIS, 25L << Math.min(sent, 6));
  }

  /** Attempts {@code d} again after {@code backoffMillis}, or once a receiver (re)starts. */
  private void retryLater(Delivery d, int sent, ReceiverFleet.Target tried, long backoffMillis) {
    fleet.changeAfter(tried)
        .completeOnTimeout(null, backoffMillis, TimeUnit.MILLISECONDS)
        .thenRunAsync(() -> attempt(d, sent, tried), pool);
  }

  @Override
  public void close() {
    pool.shutdownNow();
    http.connectionPool().evictAll();
  }
}
