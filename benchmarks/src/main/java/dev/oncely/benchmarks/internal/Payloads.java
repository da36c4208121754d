package dev.oncely.benchmarks.internal;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/** The request bodies the harness sends: small payment JSON, and larger JSON for fingerprints. */
public final class Payloads {
  private Payloads() {}

  /** A payment body for order {@code seq} (about 70 bytes, like the reference server expects). */
  public static String payment(long seq) {
    return "{\"amount\":1000,\"currency\":\"JPY\",\"customer\":\"c-" + (seq % 97) + "\",\"order\":\"o-"
        + seq + "\"}";
  }

  /** A JSON object of about {@code size} bytes: line items with mixed field types. */
  public static byte[] jsonOfSize(int size) {
    Random random = new Random(size);
    StringBuilder out = new StringBuilder("{\"order\":\"o-1\",\"currency\":\"EUR\",\"items\":[");
    int i = 0;
    while (out.length() < size - 80) {
      if (i > 0) {
        out.append(',');
      }
      out.append("{\"sku\":\"sku-").append(random.nextInt(1_000_000)).append("\",\"qty\":")
          .append(1 + random.nextInt(9)).append(",\"price\":").append(random.nextInt(100_000))
          .append(",\"gift\":").append(random.nextBoolean()).append('}');
      i++;
    }
    out.append("],\"note\":\"bench\"}");
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }
}
