package dev.oncely.server.webhook;

/**
 * Hears every refused delivery (the stored ones are {@link dev.oncely.server.inbox.InboxEvent}s).
 * Called on the request's thread; must be quick and must not throw (a throw is logged and
 * ignored).
 */
@FunctionalInterface
public interface WebhookListener {
  /** Hears that a delivery to {@code source} was refused for {@code reason}. */
  void refused(String source, WebhookRefusedException.Reason reason);
}
