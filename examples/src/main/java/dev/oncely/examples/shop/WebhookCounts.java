package dev.oncely.examples.shop;

import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxListener;
import dev.oncely.server.webhook.WebhookListener;
import dev.oncely.server.webhook.WebhookRefusedException;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what the webhook receiver and the inbox did since the shop started (or was reset): the
 * inbox's events by kind (accepted, duplicate, handled, failed, dead-lettered, ...) and the
 * refused deliveries by reason. In memory only, like {@link ReceiptCounts}; the effects
 * themselves are durable ({@link WebhookLedger}). Thread-safe.
 */
final class WebhookCounts implements InboxListener, WebhookListener {
  private final Map<InboxEvent.Kind, LongAdder> events = new EnumMap<>(InboxEvent.Kind.class);
  private final Map<WebhookRefusedException.Reason, LongAdder> refused =
      new EnumMap<>(WebhookRefusedException.Reason.class);

  WebhookCounts() {
    for (InboxEvent.Kind k : InboxEvent.Kind.values()) {
      events.put(k, new LongAdder());
    }
    for (WebhookRefusedException.Reason r : WebhookRefusedException.Reason.values()) {
      refused.put(r, new LongAdder());
    }
  }

  @Override
  public void onEvent(InboxEvent event) {
    events.get(event.kind()).increment();
  }

  @Override
  public void refused(String source, WebhookRefusedException.Reason reason) {
    refused.get(reason).increment();
  }

  /** Every inbox event kind, in declaration order, in camel case ({@code deadLettered}). */
  Map<String, Long> events() {
    Map<String, Long> out = new LinkedHashMap<>();
    events.forEach((k, v) -> out.put(ReceiptCounts.camel(k.name()), v.sum()));
    return out;
  }

  /** Every refusal reason, in declaration order, in camel case ({@code badSignature}). */
  Map<String, Long> refused() {
    Map<String, Long> out = new LinkedHashMap<>();
    refused.forEach((k, v) -> out.put(ReceiptCounts.camel(k.name()), v.sum()));
    return out;
  }

  /** Counts from zero again. */
  void reset() {
    events.values().forEach(LongAdder::reset);
    refused.values().forEach(LongAdder::reset);
  }
}
