package dev.oncely.client.internal;

import java.time.Duration;

/** Validation of duration settings, shared by the builders so every one words it the same way. */
public final class Durations {
  private Durations() {}

  /**
   * Returns {@code value} if it is longer than zero.
   *
   * @throws IllegalArgumentException naming the setting and the value otherwise (also for null)
   */
  public static Duration positive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be a duration > 0, was " + value);
    }
    return value;
  }

  /**
   * Returns {@code value} if it is zero or longer.
   *
   * @throws IllegalArgumentException naming the setting and the value otherwise (also for null)
   */
  public static Duration notNegative(String name, Duration value) {
    if (value == null || value.isNegative()) {
      throw new IllegalArgumentException(name + " must be a duration >= 0, was " + value);
    }
    return value;
  }
}
