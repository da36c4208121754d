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

  /**
   * A realistic checkout body for order {@code seq}, about 750 bytes: amount, customer, three line
   * items, a shipping address and metadata (what the end-to-end throughput runs send).
   */
  public static String order(long seq) {
    return "{\"amount\":12900,\"currency\":\"EUR\",\"customer\":\"cus_" + (seq % 997)
        + "\",\"order\":\"ord-" + seq + "\",\"description\":\"Checkout of a web shop basket\","
        + "\"items\":[{\"sku\":\"sku-10442\",\"name\":\"Espresso beans 1 kg\",\"qty\":2,"
        + "\"unit_price\":2450},{\"sku\":\"sku-20017\",\"name\":\"Milk jug, steel\",\"qty\":1,"
        + "\"unit_price\":1900},{\"sku\":\"sku-30981\",\"name\":\"Descaler, 3 pack\",\"qty\":1,"
        + "\"unit_price\":1100}],\"shipping\":{\"name\":\"A. Customer\",\"line1\":\"12 Example"
        + " Street\",\"line2\":null,\"city\":\"Lyon\",\"postal_code\":\"69002\",\"country\":\"FR\"},"
        + "\"metadata\":{\"channel\":\"web\",\"campaign\":\"winter-sale\",\"cart_id\":\"cart-"
        + (seq * 31 % 100_000) + "\",\"gift\":false,\"tax_included\":true},"
        + "\"statement_descriptor\":\"EXAMPLE SHOP\",\"capture\":\"automatic\"}";
  }

  /**
   * A webhook event for order {@code seq}, about 1 KB: a Standard Webhooks-style envelope (type,
   * timestamp, API version) around the {@link #order} checkout as its data (what the webhook
   * scenario's senders sign and post).
   */
  public static String event(long seq) {
    return "{\"id\":\"evt_" + seq + "\",\"object\":\"event\",\"type\":\"checkout.completed\","
        + "\"timestamp\":\"2026-12-05T18:00:00.000Z\",\"created\":1764957600,\"pending_webhooks\":1,"
        + "\"api_version\":\"2026-11-01\",\"livemode\":false,\"account\":\"acct_1Bench\","
        + "\"request\":{\"id\":\"req_" + seq + "\",\"idempotency_key\":null},\"attempt\":1,"
        + "\"data\":{\"object\":\"checkout\",\"status\":\"complete\",\"payment_status\":"
        + "\"paid\",\"order\":" + order(seq) + "}}";
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
