package dev.oncely.persistence.crash;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;

/**
 * The server side of the idempotency contract, run in the test JVM behind a MockWebServer: a
 * {@code POST /payments} with an {@code Idempotency-Key} (IETF dialect, quoted) and the tenant in
 * {@code X-Tenant} reserves (tenant, key) atomically, commits the business effect (one payment for the order in the body) and stores its
 * response; a repeat of the key replays that response exactly, answers {@code 409} while the first
 * request is still processing and {@code 422} for another body. Faults are seeded per (order,
 * request number of its key), so they do not depend on thread timing:
 *
 * <ul>
 *   <li>{@code dropPercent} of the answers are dropped after the effect was committed (the socket
 *       is closed at response start, so the client reads no answer);
 *   <li>{@code slowPercent} of the effects are slow: the first request is answered {@code 202} and
 *       the next one or two repeats {@code 409} before the replay.
 * </ul>
 *
 * <p>It counts effects per order, the keys each order arrived with, and waits for conditions on
 * those counts without sleeping.
 */
final class EffectServer extends Dispatcher {
  private static final Pattern ORDER = Pattern.compile("\"order\":\"([^\"]+)\"");

  private final long seed;
  private final int dropPercent;
  private final int slowPercent;
  private final Map<String, Entry> byKey = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> keysByOrder = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> effectsByOrder = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> inProgressByOrder = new ConcurrentHashMap<>();
  private final AtomicInteger effects = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger replays = new AtomicInteger();
  private final AtomicInteger dropped = new AtomicInteger();
  private final AtomicInteger inProgress = new AtomicInteger();
  private final AtomicInteger mismatches = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private volatile Pause pause;

  EffectServer(long seed, int dropPercent, int slowPercent) {
    this.seed = seed;
    this.dropPercent = dropPercent;
    this.slowPercent = slowPercent;
  }

  /**
   * A request held by the server after it committed the effect of {@code order} and before it
   * stored and sent the answer: the state of a server that crashed the client's wait.
   */
  static final class Pause {
    final String order;
    final CountDownLatch committed = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    private Pause(String order) {
      this.order = order;
    }
  }

  /** Holds the first request for {@code order} after its effect, until the pause is released. */
  Pause pauseAfterEffect(String order) {
    Pause p = new Pause(order);
    pause = p;
    return p;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
    try {
      return answer(request);
    } finally {
      signal();
    }
  }

  private MockResponse answer(RecordedRequest request) throws InterruptedException {
    requests.incrementAndGet();
    if (!"POST".equals(request.getMethod())
        || !SdkWorkload.PATH.equals(request.getUrl().encodedPath())) {
      return status(404, "{\"error\":\"no such resource\"}");
    }
    String header = request.getHeaders().get("Idempotency-Key");
    if (header == null || header.length() < 3 || !header.startsWith("\"")
        || !header.endsWith("\"")) {
      return status(400, "{\"error\":\"Idempotency-Key must be a quoted string\"}");
    }
    String tenant = request.getHeaders().get(SdkWorkload.TENANT_HEADER);
    if (tenant == null) {
      return status(400, "{\"error\":\"no tenant\"}");
    }
    String key = header.substring(1, header.length() - 1);
    byte[] body = request.getBody() == null ? new byte[0] : request.getBody().toByteArray();
    Matcher m = ORDER.matcher(new String(body, StandardCharsets.UTF_8));
    if (!m.find()) {
      return status(400, "{\"error\":\"no order\"}");
    }
    String order = m.group(1);
    Entry fresh = new Entry(order, body);
    Entry existing = byKey.putIfAbsent(tenant + '\u0000' + key, fresh);
    return existing == null ? first(key, fresh) : repeat(existing, body);
  }

  private MockResponse first(String key, Entry entry) throws InterruptedException {
    int n = effectsByOrder.computeIfAbsent(entry.order, o -> new AtomicInteger()).incrementAndGet();
    keysByOrder.computeIfAbsent(entry.order, o -> ConcurrentHashMap.newKeySet()).add(key);
    int payment = effects.incrementAndGet();
    String response = "{\"payment\":\"pay-" + payment + "\",\"order\":\"" + entry.order
        + "\",\"effect\":" + n + "}";
    Pause p = pause;
    if (p != null && p.order.equals(entry.order)) {
      signal();
      p.committed.countDown();
      if (!p.release.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the paused request was never released");
      }
    }
    int roll = roll(entry.order, 0);
    synchronized (entry) {
      entry.requests = 1;
      entry.response = response;
      if (roll % 100 < slowPercent) {
        entry.busyRepeats = 1 + (roll >>> 8) % 2;
        return status(202, "{\"status\":\"processing\"}");
      }
      entry.completed = true;
    }
    return maybeDropped(builder(201, response), roll);
  }

  private MockResponse repeat(Entry entry, byte[] body) {
    synchronized (entry) {
      if (!Arrays.equals(entry.body, body)) {
        mismatches.incrementAndGet();
        return status(422, "{\"error\":\"key reused with another payload\"}");
      }
      int number = entry.requests++;
      if (!entry.completed) {
        inProgress.incrementAndGet();
        inProgressByOrder.computeIfAbsent(entry.order, o -> new AtomicInteger()).incrementAndGet();
        if (entry.response != null && --entry.busyRepeats <= 0) {
          entry.completed = true;
        }
        return status(409, "{\"error\":\"a request with this key is in progress\"}");
      }
      replays.incrementAndGet();
      return maybeDropped(builder(201, entry.response).addHeader("Idempotent-Replayed", "true"),
          roll(entry.order, number));
    }
  }

  private MockResponse maybeDropped(MockResponse.Builder answer, int roll) {
    if ((roll >>> 16) % 100 < dropPercent) {
      dropped.incrementAndGet();
      answer.onResponseStart(new SocketEffect.CloseSocket(true, true, true));
    }
    return answer.build();
  }

  private static MockResponse status(int code, String body) {
    return builder(code, body).build();
  }

  private static MockResponse.Builder builder(int code, String body) {
    return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json")
        .body(body);
  }

  private int roll(String order, int request) {
    long h = seed ^ (order.hashCode() * 0x9E3779B97F4A7C15L) ^ (request * 0xC2B2AE3D27D4EB4FL);
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    return (int) (h & 0x7fffffff);
  }

  private void signal() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until {@code condition} holds; gives up early (false) once {@code keepWaiting} is false,
   * fails after {@code timeout}.
   */
  boolean await(BooleanSupplier condition, BooleanSupplier keepWaiting, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (!condition.getAsBoolean()) {
        if (!keepWaiting.getAsBoolean()) {
          return false;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("the server did not reach the awaited state within " + timeout
              + "; " + this);
        }
        changed.await(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Business effects committed, over all orders. */
  int effects() {
    return effects.get();
  }

  /** Effects committed for {@code order}. */
  int effectsOf(String order) {
    AtomicInteger n = effectsByOrder.get(order);
    return n == null ? 0 : n.get();
  }

  /** {@code 409 in progress} answers given to repeats of {@code order}'s key. */
  int inProgressAnswersOf(String order) {
    AtomicInteger n = inProgressByOrder.get(order);
    return n == null ? 0 : n.get();
  }

  /** The keys {@code order} arrived with (one, unless the client made a second intent). */
  Set<String> keysOf(String order) {
    return keysByOrder.getOrDefault(order, Set.of());
  }

  /** The response stored for {@code key} of our tenant, or null before its effect is complete. */
  String responseOf(String key) {
    Entry e = byKey.get(SdkWorkload.SCOPE + '\u0000' + key);
    if (e == null) {
      return null;
    }
    synchronized (e) {
      return e.response;
    }
  }

  /** Replays of stored responses, over all keys. */
  int replays() {
    return replays.get();
  }

  @Override
  public String toString() {
    return "server: " + requests + " requests, " + effects + " effects, " + replays + " replays, "
        + dropped + " answers dropped, " + inProgress + " answered 409, " + mismatches
        + " answered 422";
  }

  /** The server's idempotency record of one key. */
  private static final class Entry {
    final String order;
    final byte[] body;
    int requests;
    boolean completed;
    int busyRepeats;
    String response;

    Entry(String order, byte[] body) {
      this.order = order;
      this.body = body;
    }
  }
}
