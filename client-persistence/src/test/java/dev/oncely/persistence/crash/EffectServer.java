package dev.oncely.persistence.crash;

import dev.oncely.testing.Dice;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.KeyQuoting;
import dev.oncely.testing.ReceivedRequest;
import dev.oncely.testing.ServedAnswer;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/**
 * The crash tests' server: the kit's {@link IdempotentServer} (IETF dialect, quoted keys, scoped
 * by {@code X-Tenant}, one intent per order in the body) with faults seeded per (order, request
 * number of its key), so they do not depend on thread timing:
 *
 * <ul>
 *   <li>{@code dropPercent} of the answers are dropped after the effect was committed;
 *   <li>{@code slowPercent} of the effects are slow: the first request is answered {@code 202} and
 *       the next one or two repeats {@code 409} before the replay.
 * </ul>
 *
 * <p>This class only adds what the crash tests need around the kit: a pause right after one
 * order's effect, and waiting for conditions on the counts without sleeping.
 */
final class EffectServer extends Dispatcher {
  private final Dice dice;
  private final int dropPercent;
  private final int slowPercent;
  private final IdempotentServer kit;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private volatile Pause pause;

  EffectServer(long seed, int dropPercent, int slowPercent) {
    this.dice = Dice.seeded(seed);
    this.dropPercent = dropPercent;
    this.slowPercent = slowPercent;
    this.kit = IdempotentServer.builder()
        .keyQuoting(KeyQuoting.QUOTED)
        .scopeHeader(SdkWorkload.TENANT_HEADER)
        .intentOf(IdempotentServer.jsonField("order"))
        .faults(FaultScript.builder().rule(this::faultFor).build())
        .onEffect(e -> holdIfPaused(e.intent()))
        .build();
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

  private void holdIfPaused(String order) {
    Pause p = pause;
    if (p == null || !p.order.equals(order)) {
      return;
    }
    signal();
    p.committed.countDown();
    try {
      if (!p.release.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the paused request was never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Fault faultFor(ReceivedRequest request, int requestOfKey) {
    String order = IdempotentServer.jsonField("order").apply(request);
    if (requestOfKey == 0 || order == null) {
      return null;
    }
    int roll = dice.roll(order, requestOfKey - 1);
    if (requestOfKey == 1 && roll % 100 < slowPercent) {
      return Fault.processingSlowly(1 + (roll >>> 8) % 2);
    }
    return (roll >>> 16) % 100 < dropPercent ? Fault.dropAfterCommit() : null;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
    try {
      return kit.dispatch(request);
    } finally {
      signal();
    }
  }

  @Override
  public void close() {
    kit.close();
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
    return kit.ledger().size();
  }

  /** Effects committed for {@code order}. */
  int effectsOf(String order) {
    return kit.ledger().countOf(order);
  }

  /** {@code 409 in progress} answers given to repeats of {@code order}'s key. */
  int inProgressAnswersOf(String order) {
    return kit.answersOf(order, ServedAnswer.Kind.IN_PROGRESS);
  }

  /** The keys {@code order}'s effects came with (one, unless the client made a second intent). */
  Set<String> keysOf(String order) {
    return new LinkedHashSet<>(kit.ledger().keysOf(order));
  }

  /** The response stored for {@code key} of our tenant, or null before its effect is complete. */
  String responseOf(String key) {
    return kit.storedBody(SdkWorkload.SCOPE, key).orElse(null);
  }

  /** Replays of stored responses, over all keys. */
  int replays() {
    return (int) kit.answers().stream()
        .filter(a -> a.kind() == ServedAnswer.Kind.REPLAY).count();
  }

  @Override
  public String toString() {
    return "server: " + kit;
  }
}
