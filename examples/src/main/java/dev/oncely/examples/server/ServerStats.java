package dev.oncely.examples.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.testing.EffectLedger;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ServedAnswer;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A consistent-enough snapshot of a {@link ReferenceServer}'s counters, as served by
 * {@code GET /stats}, computed from the testing kit's effect ledger, served answers and injected
 * faults. They are read one after another while requests may run, so a snapshot taken under load
 * can be off by in-flight requests; a snapshot of an idle server is exact. Immutable.
 *
 * <p>An <em>effect</em> is one payment committed (the business effect a duplicate would repeat;
 * a slow payment counts from its acceptance). {@link #duplicates()} counts effects beyond the
 * first for the same {@code order} field, which is how a keyless client's retries show up.
 */
public final class ServerStats {
  private final long requests;
  private final long effects;
  private final long keylessEffects;
  private final long replays;
  private final long status409;
  private final long status422;
  private final long status202;
  private final long polls;
  private final Map<FaultKind, Long> faults;
  private final Map<String, Long> effectsPerKey;
  private final Map<String, Long> effectsPerOrder;

  /**
   * Counts what {@code kit} did, plus the requests the reference server's routing delayed by
   * latency and refused for a body that is not a JSON object (those never reached the kit).
   */
  static ServerStats of(IdempotentServer kit, long delayed, long invalidBodies) {
    long replays = 0;
    long inProgress = 0;
    long mismatches = 0;
    long accepted = 0;
    long polls = 0;
    for (ServedAnswer a : kit.answers()) {
      switch (a.kind()) {
        case REPLAY -> replays++;
        case IN_PROGRESS -> inProgress++;
        case MISMATCH -> mismatches++;
        case POLL -> polls++;
        case EFFECT -> accepted += a.status() == 202 ? 1 : 0;
        default -> { }
      }
    }
    Map<FaultKind, Long> faults = new EnumMap<>(FaultKind.class);
    faults.put(FaultKind.LATENCY, delayed);
    for (IdempotentServer.InjectedFault f : kit.injectedFaults()) {
      FaultKind kind = FaultPlan.kindOf(f.fault());
      if (kind != null) {
        faults.merge(kind, 1L, Long::sum);
      }
    }
    long keyless = 0;
    Map<String, Long> perKey = new HashMap<>();
    Map<String, Long> perOrder = new HashMap<>();
    List<EffectLedger.Effect> effects = kit.ledger().all();
    for (EffectLedger.Effect e : effects) {
      if (e.key() == null) {
        keyless++;
      } else {
        perKey.merge(e.key(), 1L, Long::sum);
      }
      // The kit names an effect's intent by the order field, falling back to the key (or to
      // keyless#n): an intent that is neither came from an order.
      boolean fromOrder = e.key() == null ? !e.intent().startsWith("keyless#")
          : !e.intent().equals(e.key());
      if (fromOrder) {
        perOrder.merge(e.intent(), 1L, Long::sum);
      }
    }
    return new ServerStats(kit.requestCount() + invalidBodies, effects.size(), keyless, replays,
        inProgress, mismatches, accepted, polls, faults, perKey, perOrder);
  }

  private ServerStats(long requests, long effects, long keylessEffects, long replays,
      long status409, long status422, long status202, long polls, Map<FaultKind, Long> faults,
      Map<String, Long> effectsPerKey, Map<String, Long> effectsPerOrder) {
    this.requests = requests;
    this.effects = effects;
    this.keylessEffects = keylessEffects;
    this.replays = replays;
    this.status409 = status409;
    this.status422 = status422;
    this.status202 = status202;
    this.polls = polls;
    EnumMap<FaultKind, Long> f = new EnumMap<>(FaultKind.class);
    for (FaultKind k : FaultKind.values()) {
      f.put(k, faults.getOrDefault(k, 0L));
    }
    this.faults = Collections.unmodifiableMap(f);
    this.effectsPerKey = Collections.unmodifiableMap(new TreeMap<>(effectsPerKey));
    this.effectsPerOrder = Collections.unmodifiableMap(new TreeMap<>(effectsPerOrder));
  }

  /** Requests to {@code /payments} and {@code /payments/{id}}, including faulted ones. */
  public long requests() {
    return requests;
  }

  /** Payments created, with or without a key. */
  public long effects() {
    return effects;
  }

  /** Payments created by requests without an {@code Idempotency-Key}. */
  public long keylessEffects() {
    return keylessEffects;
  }

  /** Effects beyond the first for the same {@code order}: the sum of (count - 1). */
  public long duplicates() {
    long d = 0;
    for (long c : effectsPerOrder.values()) {
      d += c - 1;
    }
    return d;
  }

  /** Repeats answered with the stored response and {@code Idempotent-Replayed: true}. */
  public long replays() {
    return replays;
  }

  /** Repeats answered {@code 409} because the first request was still processing. */
  public long status409() {
    return status409;
  }

  /** Keys reused with another payload: {@code 422}, or {@code 400} in the Stripe dialect. */
  public long status422() {
    return status422;
  }

  /** {@code POST /payments} answered {@code 202} (slow payments accepted). */
  public long status202() {
    return status202;
  }

  /** {@code GET /payments/{id}} requests. */
  public long polls() {
    return polls;
  }

  /** How often {@code kind} was injected. */
  public long faults(FaultKind kind) {
    return faults.get(kind);
  }

  /** Injections by kind, every kind present. */
  public Map<FaultKind, Long> faults() {
    return faults;
  }

  /** Effects created by {@code key} (in any scope): 0 or 1 on a correct server. */
  public long effectsForKey(String key) {
    return effectsPerKey.getOrDefault(key, 0L);
  }

  /** Effects per idempotency key, sorted by key. */
  public Map<String, Long> effectsPerKey() {
    return effectsPerKey;
  }

  /** Effects per {@code order} field of the payment, sorted by order; counts above 1 are duplicates. */
  public Map<String, Long> effectsPerOrder() {
    return effectsPerOrder;
  }

  /** The JSON served by {@code GET /stats}. */
  public String toJson() {
    ObjectNode root = Payments.MAPPER.createObjectNode();
    root.put("requests", requests);
    root.put("effects", effects);
    root.put("duplicates", duplicates());
    root.put("keylessEffects", keylessEffects);
    root.put("replays", replays);
    root.put("status409", status409);
    root.put("status422", status422);
    root.put("status202", status202);
    root.put("polls", polls);
    ObjectNode f = root.putObject("faults");
    faults.forEach((k, v) -> f.put(k.specName(), v));
    ObjectNode perKey = root.putObject("effectsPerKey");
    effectsPerKey.forEach(perKey::put);
    ObjectNode perOrder = root.putObject("effectsPerOrder");
    effectsPerOrder.forEach(perOrder::put);
    return root.toString();
  }

  @Override
  public String toString() {
    return "ServerStats[requests=" + requests + ", effects=" + effects + ", duplicates="
        + duplicates() + ", replays=" + replays + ", 409=" + status409 + ", 422=" + status422
        + ", 202=" + status202 + ", faults=" + faults + "]";
  }
}
