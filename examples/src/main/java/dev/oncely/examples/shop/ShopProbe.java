package dev.oncely.examples.shop;

/**
 * Hears each {@link ShopStep} of a payment's handler, on the request's thread, with the payment's
 * order reference (null when the request has none). For tracing, and for crash tests: a probe
 * that halts the JVM at a step leaves exactly that step's state on disk. What a probe throws
 * fails the handler at that step (the server half then releases the receipt, or keeps it pending
 * once effects are recorded), so it must not throw unless it means to.
 */
@FunctionalInterface
public interface ShopProbe {
  /** Hears that the handler of {@code order} passed {@code step}. */
  void reached(ShopStep step, String order);

  /** A probe that hears nothing. */
  static ShopProbe none() {
    return (step, order) -> {};
  }
}
