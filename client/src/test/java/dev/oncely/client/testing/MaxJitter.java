package dev.oncely.client.testing;

import java.util.Random;

/** A "random" source that always picks the top of the range: backoff waits become their ceilings. */
public final class MaxJitter extends Random {
  private static final long serialVersionUID = 1L;

  @Override
  public double nextDouble() {
    return Math.nextDown(1.0);
  }
}
