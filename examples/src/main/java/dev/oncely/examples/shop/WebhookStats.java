package dev.oncely.examples.shop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code webhooks} part of {@code GET /stats} ({@link ShopStats#webhooks()}): the events
 * handled (their business effect made) in total, per source and per event id, with the handler
 * runs behind them; the inbox's unfinished messages by state; and, since the shop started, the
 * inbox's events by kind and the refused deliveries by reason. Handled events and runs are read
 * from the durable ledger, the inbox from its store, the rest from memory. Immutable.
 *
 * <pre>{@code
 * "webhooks":{"handled":2,"runs":2,"repeatsFound":0,
 *   "inbox":{"queued":0,"processing":0,"dead":0},
 *   "events":{"accepted":2,"duplicate":1,"handled":2,...},"refused":{"badSignature":1,...},
 *   "perSource":{"standard":2},"perEventId":{"standard/msg_1":1,"standard/msg_2":1}}
 * }</pre>
 */
public final class WebhookStats {
  /** What a shop without webhook sources reports. */
  static final WebhookStats NONE = new WebhookStats(0, 0, 0, 0, 0, Map.of(), Map.of(), Map.of(),
      Map.of());

  private final long handled;
  private final long runs;
  private final long queued;
  private final long processing;
  private final long dead;
  private final Map<String, Long> events;
  private final Map<String, Long> refused;
  private final Map<String, Long> perSource;
  private final Map<String, Long> perEventId;

  WebhookStats(long handled, long runs, long queued, long processing, long dead,
      Map<String, Long> events, Map<String, Long> refused, Map<String, Long> perSource,
      Map<String, Long> perEventId) {
    this.handled = handled;
    this.runs = runs;
    this.queued = queued;
    this.processing = processing;
    this.dead = dead;
    this.events = Collections.unmodifiableMap(new LinkedHashMap<>(events));
    this.refused = Collections.unmodifiableMap(new LinkedHashMap<>(refused));
    this.perSource = Collections.unmodifiableMap(new TreeMap<>(perSource));
    this.perEventId = Collections.unmodifiableMap(new TreeMap<>(perEventId));
  }

  /** Events whose business effect is made: one per (source, event id), however often sent. */
  public long handled() {
    return handled;
  }

  /** Handler runs that reached the ledger: {@link #handled()} plus {@link #repeatsFound()}. */
  public long runs() {
    return runs;
  }

  /**
   * Handler runs that found their event's effect made and made nothing: a run repeated after a
   * crash between the effect's commit and the inbox's record of the run. Zero when every event
   * was run once.
   */
  public long repeatsFound() {
    return runs - handled;
  }

  /** Inbox messages waiting for a worker. */
  public long queued() {
    return queued;
  }

  /** Inbox messages a handler holds (or held, until its lease runs out). */
  public long processing() {
    return processing;
  }

  /** Inbox messages dead-lettered: failed as often as allowed, waiting for an operator. */
  public long dead() {
    return dead;
  }

  /** The inbox's events by kind since the shop started, in camel case ({@code duplicate}). */
  public Map<String, Long> events() {
    return events;
  }

  /** The count of one inbox event kind ({@code duplicate}), 0 if unknown. */
  public long event(String name) {
    return events.getOrDefault(name, 0L);
  }

  /** Refused deliveries by reason since the shop started, in camel case ({@code badSignature}). */
  public Map<String, Long> refused() {
    return refused;
  }

  /** The count of one refusal reason ({@code staleTimestamp}), 0 if unknown. */
  public long refused(String reason) {
    return refused.getOrDefault(reason, 0L);
  }

  /** Events handled per source, sorted. */
  public Map<String, Long> perSource() {
    return perSource;
  }

  /**
   * Handler runs per event, keyed {@code source/event id}, sorted: 1 for an event run once,
   * however often it was delivered; more for a run repeated after a crash (its effect still made
   * once).
   */
  public Map<String, Long> perEventId() {
    return perEventId;
  }

  ObjectNode toJson(ObjectMapper json) {
    ObjectNode root = json.createObjectNode();
    root.put("handled", handled);
    root.put("runs", runs);
    root.put("repeatsFound", repeatsFound());
    ObjectNode inbox = root.putObject("inbox");
    inbox.put("queued", queued);
    inbox.put("processing", processing);
    inbox.put("dead", dead);
    ObjectNode ev = root.putObject("events");
    events.forEach(ev::put);
    ObjectNode re = root.putObject("refused");
    refused.forEach(re::put);
    ObjectNode ps = root.putObject("perSource");
    perSource.forEach(ps::put);
    ObjectNode pe = root.putObject("perEventId");
    perEventId.forEach(pe::put);
    return root;
  }

  static WebhookStats fromJson(JsonNode n) {
    if (n == null || n.isNull()) {
      return NONE;
    }
    JsonNode inbox = n.get("inbox");
    return new WebhookStats(n.get("handled").asLong(), n.get("runs").asLong(),
        inbox.get("queued").asLong(), inbox.get("processing").asLong(),
        inbox.get("dead").asLong(), longs(n.get("events")), longs(n.get("refused")),
        longs(n.get("perSource")), longs(n.get("perEventId")));
  }

  @Override
  public String toString() {
    return "WebhookStats[handled=" + handled + ", runs=" + runs + ", queued=" + queued
        + ", processing=" + processing + ", dead=" + dead + ", events=" + events + ", refused="
        + refused + "]";
  }

  static Map<String, Long> longs(JsonNode object) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), e.getValue().asLong());
    }
    return out;
  }
}
