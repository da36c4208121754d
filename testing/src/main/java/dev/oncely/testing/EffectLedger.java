package dev.oncely.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The business effects an {@link IdempotentServer} committed, one entry per effect, with the
 * intent it belongs to (see {@link IdempotentServer.Builder#intentOf}) and the key it came with.
 * The question every test of an idempotent client asks is {@link #assertAtMostOneEffectPerIntent()}.
 * Thread-safe; queries return snapshots.
 */
public final class EffectLedger {
  // Not copy-on-write: a load test commits hundreds of thousands of effects.
  private final List<Effect> effects = new ArrayList<>();

  /**
   * One committed effect.
   *
   * @param sequence the effect's number on this server, from 1
   * @param intent the business intent it belongs to
   * @param key the idempotency key it came with, or null for a keyless request
   * @param requestNumber the number of the request that caused it
   * @param afterServerForgot whether the server had lost or expired this key's record before (a
   *     second effect marked so is the server's inconsistency, not the client's resend under a new
   *     key)
   */
  public record Effect(int sequence, String intent, @Nullable String key, int requestNumber,
      boolean afterServerForgot) {
    /** Validates the intent. */
    public Effect {
      Objects.requireNonNull(intent, "intent");
    }
  }

  Effect add(String intent, @Nullable String key, int requestNumber, boolean afterServerForgot) {
    Effect e;
    synchronized (effects) {
      e = new Effect(effects.size() + 1, intent, key, requestNumber, afterServerForgot);
      effects.add(e);
      effects.notifyAll();
    }
    return e;
  }

  void clear() {
    synchronized (effects) {
      effects.clear();
      effects.notifyAll();
    }
  }

  /**
   * Waits until at least {@code count} effects were committed, at most {@code timeout}. Woken by
   * each commit, so it never polls.
   *
   * @return whether the count was reached in time
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public boolean awaitSize(int count, Duration timeout) throws InterruptedException {
    return await(() -> effects.size() >= count, timeout);
  }

  /**
   * Waits until {@code intent} has at least {@code count} effects, at most {@code timeout}. Woken
   * by each commit, so it never polls.
   *
   * @return whether the count was reached in time
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public boolean awaitCountOf(String intent, int count, Duration timeout)
      throws InterruptedException {
    return await(() -> effects.stream().filter(e -> e.intent().equals(intent)).count() >= count,
        timeout);
  }

  private boolean await(BooleanSupplier reached, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (effects) {
      while (!reached.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(effects, left);
      }
      return true;
    }
  }

  /** All effects, in commit order. */
  public List<Effect> all() {
    synchronized (effects) {
      return List.copyOf(effects);
    }
  }

  /** How many effects were committed. */
  public int size() {
    synchronized (effects) {
      return effects.size();
    }
  }

  /** The effects of {@code intent}. */
  public List<Effect> effectsOf(String intent) {
    return all().stream().filter(e -> e.intent().equals(intent)).collect(Collectors.toList());
  }

  /** How many effects {@code intent} has. */
  public int countOf(String intent) {
    return effectsOf(intent).size();
  }

  /** Whether {@code intent} has at least one effect. */
  public boolean hasEffect(String intent) {
    return countOf(intent) > 0;
  }

  /** The distinct keys {@code intent}'s effects came with (more than one: the client re-keyed). */
  public List<@Nullable String> keysOf(String intent) {
    return effectsOf(intent).stream().map(Effect::key).distinct().collect(Collectors.toList());
  }

  /** Each intent with more than one effect, with its effects. */
  public Map<String, List<Effect>> duplicates() {
    Map<String, List<Effect>> byIntent = new LinkedHashMap<>();
    for (Effect e : all()) {
      byIntent.computeIfAbsent(e.intent(), i -> new ArrayList<>()).add(e);
    }
    byIntent.values().removeIf(list -> list.size() < 2);
    return byIntent;
  }

  /**
   * Each intent with more than one effect that the server did not cause by forgetting a key:
   * the client sent the intent under a second key, or without one.
   */
  public Map<String, List<Effect>> duplicatesCausedByClient() {
    Map<String, List<Effect>> dups = duplicates();
    dups.values().removeIf(list -> list.stream().skip(1).allMatch(Effect::afterServerForgot));
    return dups;
  }

  /**
   * Passes if no intent has more than one effect.
   *
   * @throws AssertionError naming each intent with its effects otherwise
   */
  public void assertAtMostOneEffectPerIntent() {
    Map<String, List<Effect>> dups = duplicates();
    if (!dups.isEmpty()) {
      throw new AssertionError("expected at most one effect per intent, but: " + dups);
    }
  }

  /**
   * Passes if each of {@code intents} has exactly one effect.
   *
   * @throws AssertionError naming each intent with zero or several effects otherwise
   */
  public void assertExactlyOneEffectEach(Iterable<String> intents) {
    StringBuilder problems = new StringBuilder();
    for (String intent : intents) {
      int n = countOf(intent);
      if (n != 1) {
        problems.append("\n  ").append(intent).append(": ").append(n).append(" effects ")
            .append(effectsOf(intent));
      }
    }
    if (problems.length() > 0) {
      throw new AssertionError("expected exactly one effect per intent:" + problems);
    }
  }

  @Override
  public String toString() {
    return "EffectLedger" + all();
  }
}
