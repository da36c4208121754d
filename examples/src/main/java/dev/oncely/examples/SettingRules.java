package dev.oncely.examples;

import java.time.Duration;
import java.util.Objects;

/**
 * The one place the examples' settings builders check a value: every refusal is an {@link
 * IllegalArgumentException} whose message names the setting, the rule and the value, in one
 * wording ({@code port must be in [0, 65535], was 70000}). The command line ({@code
 * dev.oncely.examples.cli.Options}) checks the same ranges while parsing and names the option
 * instead; builders used from code get these messages. Stateless.
 */
public final class SettingRules {
  private SettingRules() {}

  /**
   * Returns {@code value} if it is in [{@code min}, {@code max}].
   *
   * @throws IllegalArgumentException naming {@code name}, the range and the value otherwise
   */
  public static int inRange(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "], was "
          + value);
    }
    return value;
  }

  /**
   * Returns {@code share} if it is a decimal in [0, 1].
   *
   * @throws IllegalArgumentException naming {@code name} and the value otherwise (NaN included)
   */
  public static double share(String name, double share) {
    if (!(share >= 0.0 && share <= 1.0)) {
      throw new IllegalArgumentException(name + " must be in [0, 1], was " + share);
    }
    return share;
  }

  /**
   * Returns {@code d} if it is longer than zero.
   *
   * @throws NullPointerException naming {@code name} if {@code d} is null
   * @throws IllegalArgumentException naming {@code name} and the value otherwise
   */
  public static Duration positive(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d.toMillis() + " ms");
    }
    return d;
  }

  /**
   * Returns {@code d} if it is in [{@code min}, {@code max}].
   *
   * @throws NullPointerException naming {@code name} if {@code d} is null
   * @throws IllegalArgumentException naming {@code name}, the range and the value otherwise
   */
  public static Duration inRange(String name, Duration d, Duration min, Duration max) {
    Objects.requireNonNull(d, name);
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw new IllegalArgumentException(name + " must be in [" + words(min) + ", " + words(max)
          + "], was " + words(d));
    }
    return d;
  }

  /**
   * Returns {@code text} if it is not blank.
   *
   * @throws IllegalArgumentException naming {@code name} if it is null or blank
   */
  public static String notBlank(String name, String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    return text;
  }

  /**
   * Returns {@code url} if it is an absolute {@code http} or {@code https} URL with a host.
   *
   * @throws NullPointerException naming {@code name} if {@code url} is null
   * @throws IllegalArgumentException naming {@code name} and the value otherwise
   */
  public static String httpUrl(String name, String url) {
    Objects.requireNonNull(url, name);
    if (!(url.startsWith("http://") || url.startsWith("https://")) || url.length() < 10) {
      throw new IllegalArgumentException(name + " must be an absolute http(s) URL, was '" + url
          + "'");
    }
    return url;
  }

  /** A duration as the command line writes it: {@code 250ms}, {@code 2s}. */
  public static String words(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }
}
