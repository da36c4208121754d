package dev.oncely.benchmarks.internal;

import java.util.Arrays;
import java.util.List;

/** Order statistics of small samples. */
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

  /**
   * The {@code q}-quantile (0..1) of {@code values} by the nearest-rank method; NaN for none. Sorts
   * a copy.
   */
  public static double quantile(long[] values, int count, double q) {
    if (count == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(values, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(q * count);
    return sorted[Math.max(0, Math.min(count - 1, rank - 1))];
  }
}
