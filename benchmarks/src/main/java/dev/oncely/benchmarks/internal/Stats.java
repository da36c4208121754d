package dev.oncely.benchmarks.internal;

import java.util.List;

/**
 * Summary of the few per-repetition samples of one figure (min, median, max); latency
 * percentiles within a repetition come from HdrHistogram ({@link Load.Result#latencies()}).
 */
public final class Stats {
  private Stats() {}

  /** The smallest value; NaN for none. */
  public static double min(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
  }

  /** The largest value; NaN for none. */
  public static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
  }

  /** The median (mean of the middle two for an even count); NaN for none. */
  public static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
}
