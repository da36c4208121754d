package dev.oncely.examples.demo;

/**
 * The payment bodies of the load workload (issue 4, section 3): intent {@code i} pays {@code
 * 1000 + i} JPY for customer {@code c-i} and order {@code o-i}. The reference server counts
 * duplicates per {@code order}, so two payments with one order are one intent charged twice.
 */
public final class PaymentBodies {
  private PaymentBodies() {}

  /** The JSON body of intent {@code i}. */
  public static String of(int i) {
    return "{\"amount\":" + (1000 + i) + ",\"currency\":\"JPY\",\"customer\":\"c-" + i
        + "\",\"order\":\"o-" + i + "\"}";
  }
}
