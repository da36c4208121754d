package dev.oncely.server.inbox;

/**
 * Hears every {@link InboxEvent}. Called on the thread that did the work; must be quick and must
 * not throw (a throw is logged and ignored).
 */
@FunctionalInterface
public interface InboxListener {
  /** Hears one event. */
  void onEvent(InboxEvent event);
}
