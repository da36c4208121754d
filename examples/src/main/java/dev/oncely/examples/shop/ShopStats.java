package dev.oncely.examples.shop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code GET /stats} of a {@link Shop} says, as JSON and as a value: the payments made (the
 * business effects) in total, per idempotency key hash (never the key) and per order; the
 * duplicates (payments beyond the first for one order); the handler runs that found their
 * receipt's payment already made; the receipts still processing or pending; and the receipt
 * events since the shop started. Payments and repeats are read from the durable ledger, so they
 * count across restarts; receipts from the receipt store; events from memory. Beside the
 * payments, the webhook events the shop received ({@link #webhooks()}). Immutable.
 *
 * <pre>{@code
 * {"effects":2,"duplicates":0,"repeatsFound":0,"receipts":{"processing":0,"pending":0},
 *  "events":{"reserved":2,"replayed":1,...},
 *  "effectsPerKeyHash":{"k#7c35c5a1785d":1,"k#e01b9f3a22c4":1},
 *  "effectsPerOrder":{"o-1":1,"o-2":1},
 *  "webhooks":{"handled":1,"runs":1,"repeatsFound":0,...,"perEventId":{"standard/msg_1":1}}}
 * }</pre>
 */
public final class ShopStats {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final long effects;
  private final long repeatsFound;
  private final long processing;
  private final long pending;
  private final Map<String, Long> events;
  private final Map<String, Long> effectsPerKeyHash;
  private final Map<String, Long> effectsPerOrder;
  private final WebhookStats webhooks;

  ShopStats(long effects, long repeatsFound, long processing, long pending,
      Map<String, Long> events, Map<String, Long> effectsPerKeyHash,
      Map<String, Long> effectsPerOrder, WebhookStats webhooks) {
    this.effects = effects;
    this.repeatsFound = repeatsFound;
    this.processing = processing;
    this.pending = pending;
    this.events = Collections.unmodifiableMap(new LinkedHashMap<>(events));
    this.effectsPerKeyHash = Collections.unmodifiableMap(new TreeMap<>(effectsPerKeyHash));
    this.effectsPerOrder = Collections.unmodifiableMap(new TreeMap<>(effectsPerOrder));
    this.webhooks = webhooks;
  }

  /**
   * Reads the JSON of {@code GET /stats}.
   *
   * @throws IllegalArgumentException if it is not that JSON
   */
  public static ShopStats fromJson(String json) {
    try {
      JsonNode n = JSON.readTree(json);
      return new ShopStats(n.get("effects").asLong(), n.get("repeatsFound").asLong(),
          n.get("receipts").get("processing").asLong(), n.get("receipts").get("pending").asLong(),
          longs(n.get("events")), longs(n.get("effectsPerKeyHash")),
          longs(n.get("effectsPerOrder")), WebhookStats.fromJson(n.get("webhooks")));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not the JSON of GET /stats: " + e.getMessage(), e);
    }
  }

  /** Payments made. */
  public long effects() {
    return effects;
  }

  /** Payments beyond the first for one order: the sum over orders of (payments - 1). */
  public long duplicates() {
    long d = 0;
    for (long c : effectsPerOrder.values()) {
      d += c - 1;
    }
    return d;
  }

  /**
   * Handler runs that found their receipt's payment already made and returned it: a run after
   * the server released a receipt whose handler failed past its commit, or a takeover of a frozen
   * owner. Zero when every crash was completed by recovery.
   */
  public long repeatsFound() {
    return repeatsFound;
  }

  /** Receipts still processing (a handler runs, or its dead owner's lease has not run out). */
  public long processingReceipts() {
    return processing;
  }

  /** Receipts pending: a provider charge whose outcome is unknown. */
  public long pendingReceipts() {
    return pending;
  }

  /** Receipt events by kind since the shop started, in camel case ({@code takenOver}). */
  public Map<String, Long> events() {
    return events;
  }

  /** The count of one receipt event kind ({@code recovered}), 0 if unknown. */
  public long event(String name) {
    return events.getOrDefault(name, 0L);
  }

  /** Payments per idempotency key hash ({@code IntentId.safeKey()}), sorted. */
  public Map<String, Long> effectsPerKeyHash() {
    return effectsPerKeyHash;
  }

  /** Payments per order reference, sorted; a count above 1 is a duplicate. */
  public Map<String, Long> effectsPerOrder() {
    return effectsPerOrder;
  }

  /** The webhook events received beside the payments (all zero without webhook sources). */
  public WebhookStats webhooks() {
    return webhooks;
  }

  /** The JSON of {@code GET /stats}. */
  public String toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("effects", effects);
    root.put("duplicates", duplicates());
    root.put("repeatsFound", repeatsFound);
    ObjectNode receipts = root.putObject("receipts");
    receipts.put("processing", processing);
    receipts.put("pending", pending);
    ObjectNode ev = root.putObject("events");
    events.forEach(ev::put);
    ObjectNode perKey = root.putObject("effectsPerKeyHash");
    effectsPerKeyHash.forEach(perKey::put);
    ObjectNode perOrder = root.putObject("effectsPerOrder");
    effectsPerOrder.forEach(perOrder::put);
    root.set("webhooks", webhooks.toJson(JSON));
    try {
      return JSON.writeValueAsString(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String toString() {
    return "ShopStats[effects=" + effects + ", duplicates=" + duplicates() + ", repeatsFound="
        + repeatsFound + ", processing=" + processing + ", pending=" + pending + ", events="
        + events + ", webhooks=" + webhooks + "]";
  }

  private static Map<String, Long> longs(JsonNode object) {
    return WebhookStats.longs(object);
  }
}
