package dev.oncely.server;

/**
 * Hears every {@link ReceiptEvent}. Called on the request's thread; must be quick and must not
 * throw (a throw is logged and ignored).
 */
@FunctionalInterface
public interface ReceiptListener {
  /** Hears one event. */
  void onEvent(ReceiptEvent event);
}
