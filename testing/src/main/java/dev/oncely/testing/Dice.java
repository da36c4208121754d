package dev.oncely.testing;

/**
 * Seeded pseudo-random rolls that depend only on what they are asked about: the same seed, name
 * and number always roll the same value, whichever thread asks and in whatever order. A {@link
 * FaultScript.Rule} that rolls for (intent, request of its key) so injects the same faults into
 * the same requests of a concurrent run, where the seeded {@link java.util.Random} of {@link
 * FaultScript.Builder#withProbability} would follow the order of arrival. Immutable and
 * thread-safe.
 *
 * <pre>{@code
 * Dice dice = Dice.seeded(42);
 * FaultScript.Rule rule = (request, ofKey) ->
 *     dice.percent(request.bodyText(), ofKey, 10) ? Fault.dropAfterCommit() : null;
 * }</pre>
 */
public final class Dice {
  private final long seed;

  private Dice(long seed) {
    this.seed = seed;
  }

  /** Dice that roll by {@code seed}. */
  public static Dice seeded(long seed) {
    return new Dice(seed);
  }

  /** The seed. */
  public long seed() {
    return seed;
  }

  /**
   * The roll for ({@code name}, {@code n}): a value in [0, {@link Integer#MAX_VALUE}] whose low
   * and high bits are independent enough to serve several decisions (e.g. {@code roll % 100} and
   * {@code (roll >>> 16) % 100}).
   *
   * @throws NullPointerException if {@code name} is null
   */
  public int roll(String name, int n) {
    long h = seed ^ (name.hashCode() * 0x9E3779B97F4A7C15L) ^ (n * 0xC2B2AE3D27D4EB4FL);
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    return (int) (h & 0x7fffffff);
  }

  /**
   * Whether ({@code name}, {@code n}) falls in the first {@code percent} of 100: true for about
   * {@code percent} in 100 of the pairs.
   *
   * @throws IllegalArgumentException if {@code percent} is not in [0, 100]
   * @throws NullPointerException if {@code name} is null
   */
  public boolean percent(String name, int n, int percent) {
    if (percent < 0 || percent > 100) {
      throw new IllegalArgumentException("percent must be in [0, 100], was " + percent);
    }
    return roll(name, n) % 100 < percent;
  }

  @Override
  public String toString() {
    return "Dice[seed=" + seed + "]";
  }
}
