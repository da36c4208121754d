package dev.oncely.client.internal.drive;

import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Delivers events to a user listener and swallows (and logs) what it throws. */
public final class SafeListener implements IntentListener {
  private static final Logger LOG = Logger.getLogger("dev.oncely.client");
  private final IntentListener delegate;

  /** Wraps {@code delegate}. */
  public SafeListener(IntentListener delegate) {
    this.delegate = delegate;
  }

  @Override
  public void onEvent(IntentEvent event) {
    try {
      delegate.onEvent(event);
    } catch (RuntimeException | LinkageError e) {
      LOG.log(Level.WARNING, "intent listener threw " + e.getClass().getName() + " on "
          + event.getClass().getSimpleName() + " for " + event.id() + "; ignored");
    }
  }
}
