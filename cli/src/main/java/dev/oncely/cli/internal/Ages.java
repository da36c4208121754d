package dev.oncely.cli.internal;

import java.time.Duration;

/** Short human ages: {@code 45s}, {@code 12m05s}, {@code 3h12m}, {@code 2d04h}. */
final class Ages {
  private Ages() {}

  static String format(Duration age) {
    long s = Math.max(0, age.getSeconds());
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format("%dm%02ds", s / 60, s % 60);
    }
    if (s < 86_400) {
      return String.format("%dh%02dm", s / 3600, (s % 3600) / 60);
    }
    return String.format("%dd%02dh", s / 86_400, (s % 86_400) / 3600);
  }
}
