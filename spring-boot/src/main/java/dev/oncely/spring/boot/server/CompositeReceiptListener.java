package dev.oncely.spring.boot.server;

import dev.oncely.server.ReceiptEvent;
import dev.oncely.server.ReceiptListener;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every {@link ReceiptListener} bean of the context (the metrics, the app's), in their order: each
 * hears every event, and one that throws is logged and skipped without keeping the event from the
 * others.
 */
final class CompositeReceiptListener implements ReceiptListener {
  private static final Logger LOG = Logger.getLogger(CompositeReceiptListener.class.getName());

  private final List<ReceiptListener> listeners;

  CompositeReceiptListener(List<ReceiptListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  @Override
  public void onEvent(ReceiptEvent event) {
    for (ReceiptListener listener : listeners) {
      try {
        listener.onEvent(event);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "a receipt listener failed on a " + event.kind() + " event of "
            + event.operation(), e);
      }
    }
  }
}
