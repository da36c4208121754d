package dev.oncely.testing;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/**
 * A {@link Dispatcher} in front of another (usually an {@link IdempotentServer}) that measures how
 * many requests carrying the same idempotency key were in progress at once, for the promise "a
 * key is never on the wire twice at the same time". A request is in progress from the moment the
 * server has read it until its answer is decided; keys are compared as the raw header value;
 * requests without the header are not measured. Optionally it {@linkplain Builder#holdUpTo holds}
 * each keyed request before passing it on, as a slow handler would: that widens the window in
 * which a second request of the key is caught, and gives a crash test time to kill a client in
 * the middle of a request (the held request is handled all the same once the hold passed, so its
 * effect happens while nobody reads the answer).
 *
 * <pre>{@code
 * KeyConcurrency wire = KeyConcurrency.over(kit).holdUpTo(Duration.ofMillis(20), 7).build();
 * server.setDispatcher(wire);
 * // ... run the client ...
 * wire.assertNeverConcurrent();
 * }</pre>
 *
 * <p>Thread-safe. Defaults: key header {@value IdempotentServer#DEFAULT_KEY_HEADER}, no hold.
 */
public final class KeyConcurrency extends Dispatcher {
  private final Dispatcher delegate;
  private final String keyHeader;
  private final long holdMaxMillis;
  private final Dice dice;
  private final Map<String, Integer> inProgress = new HashMap<>();
  private final Map<String, Integer> requestsOfKey = new HashMap<>();
  private final Set<String> overlapping = new LinkedHashSet<>();
  private int overlaps;
  private int max;

  private KeyConcurrency(Builder b) {
    this.delegate = b.delegate;
    this.keyHeader = b.keyHeader;
    this.holdMaxMillis = b.holdMax.toMillis();
    this.dice = Dice.seeded(b.holdSeed);
  }

  /**
   * A builder of a measure in front of {@code delegate}.
   *
   * @throws NullPointerException if {@code delegate} is null
   */
  public static Builder over(Dispatcher delegate) {
    return new Builder(Objects.requireNonNull(delegate, "delegate"));
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
    String key = request.getHeaders().get(keyHeader);
    if (key == null) {
      return delegate.dispatch(request);
    }
    int ofKey = enter(key);
    try {
      if (holdMaxMillis > 0) {
        TimeUnit.MILLISECONDS.sleep(dice.roll(key, ofKey) % (holdMaxMillis + 1));
      }
      return delegate.dispatch(request);
    } finally {
      leave(key);
    }
  }

  private synchronized int enter(String key) {
    int now = inProgress.merge(key, 1, Integer::sum);
    if (now > 1) {
      overlaps++;
      overlapping.add(key);
    }
    max = Math.max(max, now);
    notifyAll();
    return requestsOfKey.merge(key, 1, Integer::sum);
  }

  private synchronized void leave(String key) {
    inProgress.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
    notifyAll();
  }

  /** The most requests of one key that were in progress at the same time, over all keys. */
  public synchronized int maxInProgressOfOneKey() {
    return max;
  }

  /** How many requests arrived while another request of their key was in progress. */
  public synchronized int overlaps() {
    return overlaps;
  }

  /** The keys that were ever in progress twice at once, in the order they first were. */
  public synchronized Set<String> overlappingKeys() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(overlapping));
  }

  /** How many keyed requests are in progress now. */
  public synchronized int inProgress() {
    return inProgress.values().stream().mapToInt(Integer::intValue).sum();
  }

  /**
   * Waits until at least {@code count} keyed requests are in progress at once, at most
   * {@code timeout}. Woken by each arrival and departure, so it never polls.
   *
   * @return whether that many were in progress in time
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public synchronized boolean awaitInProgress(int count, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (inProgress() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /**
   * Passes if no key was ever in progress twice at once.
   *
   * @throws AssertionError naming the keys that were, otherwise
   */
  public synchronized void assertNeverConcurrent() {
    if (overlaps > 0) {
      throw new AssertionError("expected one request of a key in progress at a time, but "
          + overlaps + " requests overlapped another of their key; keys " + overlapping);
    }
  }

  /** The delegate's next answer, if it can tell. */
  @Override
  public MockResponse peek() {
    return delegate.peek();
  }

  /** Closes the delegate (an {@link IdempotentServer} releases its held requests). */
  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public synchronized String toString() {
    return "KeyConcurrency[max " + max + " of one key, " + overlaps + " overlaps] over "
        + delegate;
  }

  /** Mutable, not thread-safe builder of {@link KeyConcurrency}. */
  public static final class Builder {
    private final Dispatcher delegate;
    private String keyHeader = IdempotentServer.DEFAULT_KEY_HEADER;
    private Duration holdMax = Duration.ZERO;
    private long holdSeed;

    private Builder(Dispatcher delegate) {
      this.delegate = delegate;
    }

    /**
     * Name of the key header; default {@value IdempotentServer#DEFAULT_KEY_HEADER}.
     *
     * @throws IllegalArgumentException if blank
     * @throws NullPointerException if null
     */
    public Builder keyHeader(String name) {
      this.keyHeader = Keys.headerName(name);
      return this;
    }

    /**
     * Holds each keyed request, in progress, before it is passed on, for a time in
     * [0, {@code max}] (whole milliseconds) rolled by {@link Dice#seeded(long) Dice.seeded(seed)}
     * for (key, number of the request among its key's). Default: no hold.
     *
     * @throws IllegalArgumentException if {@code max} is negative or above one minute
     * @throws NullPointerException if {@code max} is null
     */
    public Builder holdUpTo(Duration max, long seed) {
      Objects.requireNonNull(max, "holdUpTo");
      if (max.isNegative() || max.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException("holdUpTo must be in [0, 1 min], was " + max);
      }
      this.holdMax = max;
      this.holdSeed = seed;
      return this;
    }

    /** Returns the measure. */
    public KeyConcurrency build() {
      return new KeyConcurrency(this);
    }
  }
}
