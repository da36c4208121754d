package dev.oncely.client.testing;

import java.util.random.RandomGenerator;

/** A "random" source that always picks the top of the range: backoff waits become their ceilings. */
public final class MaxJitter implements RandomGenerator {
  @Override
  public long nextLong() {
    return Long.MAX_VALUE;
  }

  @Override
  public long nextLong(long bound) {
    return bound - 1;
  }
}
