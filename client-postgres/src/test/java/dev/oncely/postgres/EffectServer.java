package dev.oncely.postgres;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;

/**
 * The server side of the idempotency contract, behind a MockWebServer: a {@code POST} with an
 * {@code Idempotency-Key} (IETF dialect, quoted) reserves the key atomically, commits one business
 * effect for the order in the body and stores its response; a repeat replays it, or answers
 * {@code 409} while the first request is still being processed, or {@code 422} for another body.
 * Faults are seeded per (order, request number), not by thread timing: {@code failPercent} of first
 * requests are answered {@code 503} before any effect, {@code dropPercent} of answers are dropped
 * after the effect (the client reads nothing). It counts effects per order and the most requests
 * for one key it ever had in progress at once.
 */
final class EffectServer extends Dispatcher {
  private static final Pattern ORDER = Pattern.compile("\"order\":\"([^\"]+)\"");

  private final long seed;
  private final int failPercent;
  private final int dropPercent;
  private volatile int slowMillis;
  private final Map<String, Entry> byKey = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> effectsByOrder = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> activeByKey = new ConcurrentHashMap<>();
  private final Set<String> failFirst = ConcurrentHashMap.newKeySet();
  private final AtomicInteger effects = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger replays = new AtomicInteger();
  private final AtomicInteger maxActivePerKey = new AtomicInteger();

  EffectServer(long seed, int failPercent, int dropPercent) {
    this.seed = seed;
    this.failPercent = failPercent;
    this.dropPercent = dropPercent;
  }

  /** Each effect takes up to {@code millis} (seeded) before it is answered. */
  void slowEffects(int millis) {
    slowMillis = millis;
  }

  /** The first request for {@code order} is answered 503, whatever the seed says. */
  void failFirstRequestOf(String order) {
    failFirst.add(order);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
    requests.incrementAndGet();
    String header = request.getHeaders().get("Idempotency-Key");
    if (header == null || header.length() < 3 || !header.startsWith("\"")
        || !header.endsWith("\"")) {
      return status(400, "{\"error\":\"Idempotency-Key must be a quoted string\"}");
    }
    String key = header.substring(1, header.length() - 1);
    byte[] body = request.getBody() == null ? new byte[0] : request.getBody().toByteArray();
    Matcher m = ORDER.matcher(new String(body, StandardCharsets.UTF_8));
    if (!m.find()) {
      return status(400, "{\"error\":\"no order\"}");
    }
    String order = m.group(1);
    AtomicInteger active = activeByKey.computeIfAbsent(key, k -> new AtomicInteger());
    maxActivePerKey.accumulateAndGet(active.incrementAndGet(), Math::max);
    try {
      return answer(key, order, body);
    } finally {
      active.decrementAndGet();
    }
  }

  private MockResponse answer(String key, String order, byte[] body) throws InterruptedException {
    Entry entry = byKey.computeIfAbsent(key, k -> new Entry(body));
    synchronized (entry) {
      if (!Arrays.equals(entry.body, body)) {
        return status(422, "{\"error\":\"key reused with another payload\"}");
      }
      int number = entry.requests++;
      if (entry.response != null) {
        replays.incrementAndGet();
        return maybeDropped(builder(201, entry.response).addHeader("Idempotent-Replayed", "true"),
            roll(order, number));
      }
      if (number == 0 && (failFirst.remove(order) || roll(order, -1) % 100 < failPercent)) {
        return status(503, "{\"error\":\"try again\"}");
      }
      int slow = slowMillis;
      if (slow > 0) {
        TimeUnit.MILLISECONDS.sleep(roll(order, -2) % slow);
      }
      int n = effectsByOrder.computeIfAbsent(order, o -> new AtomicInteger()).incrementAndGet();
      int payment = effects.incrementAndGet();
      entry.response = "{\"payment\":\"pay-" + payment + "\",\"order\":\"" + order
          + "\",\"effect\":" + n + "}";
      return maybeDropped(builder(201, entry.response), roll(order, number));
    }
  }

  private MockResponse maybeDropped(MockResponse.Builder answer, int roll) {
    if ((roll >>> 16) % 100 < dropPercent) {
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

  /** Waits until {@code condition} holds; fails after {@code timeout}. */
  void await(BooleanSupplier condition, Duration timeout, String what) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not reached within " + timeout + ": " + what + "; " + this);
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  int effects() {
    return effects.get();
  }

  int effectsOf(String order) {
    AtomicInteger n = effectsByOrder.get(order);
    return n == null ? 0 : n.get();
  }

  int requests() {
    return requests.get();
  }

  int replays() {
    return replays.get();
  }

  /** The most requests for one key that were in progress at the same time, over all keys. */
  int maxActivePerKey() {
    return maxActivePerKey.get();
  }

  Map<String, AtomicInteger> effectsByOrder() {
    return effectsByOrder;
  }

  @Override
  public String toString() {
    return "server: " + requests + " requests, " + effects + " effects, " + replays + " replays";
  }

  private static final class Entry {
    final byte[] body;
    int requests;
    String response;

    Entry(byte[] body) {
      this.body = body;
    }
  }
}
