package dev.oncely.examples.shop;

import dev.oncely.server.ReceiptEvent;
import dev.oncely.server.ReceiptListener;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the server half's receipt events since the shop started (or was reset): how often a key
 * was reserved, replayed, answered in progress, taken over, recovered. In memory only: a
 * restarted shop counts from zero (the payments themselves are durable). Thread-safe.
 */
final class ReceiptCounts implements ReceiptListener {
  private final Map<ReceiptEvent.Kind, LongAdder> counts = new EnumMap<>(ReceiptEvent.Kind.class);

  ReceiptCounts() {
    for (ReceiptEvent.Kind k : ReceiptEvent.Kind.values()) {
      counts.put(k, new LongAdder());
    }
  }

  @Override
  public void onEvent(ReceiptEvent event) {
    counts.get(event.kind()).increment();
  }

  /** Every kind, in declaration order, named in camel case ({@code takenOver}). */
  Map<String, Long> snapshot() {
    Map<String, Long> out = new java.util.LinkedHashMap<>();
    counts.forEach((k, v) -> out.put(camel(k.name()), v.sum()));
    return out;
  }

  /** Counts from zero again. */
  void reset() {
    counts.values().forEach(LongAdder::reset);
  }

  static String camel(String constant) {
    StringBuilder sb = new StringBuilder();
    boolean upper = false;
    for (char c : constant.toLowerCase(Locale.ROOT).toCharArray()) {
      if (c == '_') {
        upper = true;
      } else {
        sb.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return sb.toString();
  }
}
