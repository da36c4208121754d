package dev.oncely.postgres;

import dev.oncely.testing.Dice;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.KeyConcurrency;
import dev.oncely.testing.KeyQuoting;
import dev.oncely.testing.ReceivedRequest;
import dev.oncely.testing.ServedAnswer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/**
 * The fleet tests' server: the kit's {@link IdempotentServer} in the IETF dialect (quoted keys,
 * {@code 422} for a key with another body, {@code 409} while the key is in progress), one intent
 * per order in the body, behind a {@link KeyConcurrency} measure that also makes effects slow.
 * Faults are rolled per (order, request number of its key), not by thread timing:
 * {@code failPercent} of first requests fail with {@code 503} before any effect (the key is
 * forgotten, the retry runs anew), {@code dropPercent} of answers, replays included, are dropped
 * after the effect was committed (the client reads nothing).
 */
final class EffectServer extends Dispatcher {
  private static final Function<ReceivedRequest, String> ORDER =
      IdempotentServer.jsonField("order");

  private final Dice dice;
  private final int failPercent;
  private final int dropPercent;
  private final Set<String> failFirst = ConcurrentHashMap.newKeySet();
  private final IdempotentServer kit;
  private final KeyConcurrency wire;

  /**
   * A server that holds each request up to {@code slowEffects} (rolled per key and request)
   * before handling it, as a slow payment provider: a killed client dies in the middle of a
   * request whose effect then happens all the same.
   */
  EffectServer(long seed, int failPercent, int dropPercent, Duration slowEffects) {
    this.dice = Dice.seeded(seed);
    this.failPercent = failPercent;
    this.dropPercent = dropPercent;
    this.kit = IdempotentServer.builder()
        .keyQuoting(KeyQuoting.QUOTED)
        .intentOf(ORDER)
        .retryAfterSeconds(-1)
        .faults(FaultScript.builder().rule(this::faultFor).build())
        .build();
    this.wire = KeyConcurrency.over(kit).holdUpTo(slowEffects, seed).build();
  }

  EffectServer(long seed, int failPercent, int dropPercent) {
    this(seed, failPercent, dropPercent, Duration.ZERO);
  }

  /** The first request for {@code order} fails with 503, whatever the seed says. */
  void failFirstRequestOf(String order) {
    failFirst.add(order);
  }

  private Fault faultFor(ReceivedRequest request, int requestOfKey) {
    String order = ORDER.apply(request);
    if (requestOfKey == 0 || order == null) {
      return null;
    }
    if (requestOfKey == 1 && (failFirst.remove(order) || dice.percent(order, 0, failPercent))) {
      return Fault.handlerError(503);
    }
    return dice.percent(order, requestOfKey, dropPercent) ? Fault.dropAfterCommit() : null;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
    return wire.dispatch(request);
  }

  @Override
  public void close() {
    wire.close();
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

  /** Business effects committed, over all orders. */
  int effects() {
    return kit.ledger().size();
  }

  /** Effects committed for {@code order}. */
  int effectsOf(String order) {
    return kit.ledger().countOf(order);
  }

  /** Requests received, whatever their answer. */
  int requests() {
    return kit.requestCount();
  }

  /** The most requests for one key that were in progress at the same time, over all keys. */
  int maxActivePerKey() {
    return wire.maxInProgressOfOneKey();
  }

  @Override
  public String toString() {
    return "server: " + kit.requestCount() + " requests, " + kit.ledger().size() + " effects, "
        + kit.answers().stream().filter(a -> a.kind() == ServedAnswer.Kind.REPLAY).count()
        + " replays, " + wire.maxInProgressOfOneKey() + " most in progress of one key";
  }
}
