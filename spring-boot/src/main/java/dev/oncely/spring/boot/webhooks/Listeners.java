package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.inbox.InboxListener;
import dev.oncely.server.webhook.WebhookListener;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every {@link InboxListener} or {@link WebhookListener} bean as one, in order: a listener that
 * throws is logged and the others still hear the event.
 */
final class Listeners {
  private static final Logger LOG = Logger.getLogger(Listeners.class.getName());

  private Listeners() {}

  static InboxListener inbox(List<InboxListener> all) {
    if (all.size() == 1) {
      return all.get(0);
    }
    List<InboxListener> copy = List.copyOf(all);
    return event -> {
      for (InboxListener l : copy) {
        try {
          l.onEvent(event);
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "an inbox listener threw; the others still hear the event", e);
        }
      }
    };
  }

  static WebhookListener webhook(List<WebhookListener> all) {
    if (all.size() == 1) {
      return all.get(0);
    }
    List<WebhookListener> copy = List.copyOf(all);
    return (source, reason) -> {
      for (WebhookListener l : copy) {
        try {
          l.refused(source, reason);
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "a webhook listener threw; the others still hear the refusal",
              e);
        }
      }
    };
  }
}
