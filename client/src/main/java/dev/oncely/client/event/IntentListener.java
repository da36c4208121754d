package dev.oncely.client.event;

import java.util.List;

/**
 * Receives {@link IntentEvent}s on the thread driving the intent, in the order they happen:
 * {@code AttemptStarted}, {@code AttemptEnded}, then what the answer meant ({@code Accepted},
 * {@code InProgress}, {@code RetryScheduled}, ...) and finally at most one of {@code Completed},
 * {@code Rejected}, {@code PayloadMismatch}, {@code GaveUpUnknown} or {@code NeedsReconciliation}
 * per drive.
 *
 * <p>Listeners must be fast and thread-safe. An exception thrown by a listener is caught and logged;
 * it never changes what happens to the intent.
 */
@FunctionalInterface
public interface IntentListener {
  /** Ignores every event. */
  IntentListener NONE = event -> {};

  /** Handles one event. */
  void onEvent(IntentEvent event);

  /** Returns a listener that passes each event to every one of {@code listeners}, in order. */
  static IntentListener all(IntentListener... listeners) {
    List<IntentListener> copy = List.of(listeners);
    return event -> {
      for (IntentListener l : copy) {
        l.onEvent(event);
      }
    };
  }
}
