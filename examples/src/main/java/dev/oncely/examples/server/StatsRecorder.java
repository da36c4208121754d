package dev.oncely.examples.server;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** The live counters behind {@link ServerStats}. Thread-safe. */
final class StatsRecorder {
  private final LongAdder requests = new LongAdder();
  private final LongAdder effects = new LongAdder();
  private final LongAdder keylessEffects = new LongAdder();
  private final LongAdder replays = new LongAdder();
  private final LongAdder status409 = new LongAdder();
  private final LongAdder status422 = new LongAdder();
  private final LongAdder status202 = new LongAdder();
  private final LongAdder polls = new LongAdder();
  private final Map<FaultKind, LongAdder> faults = new EnumMap<>(FaultKind.class);
  private final ConcurrentHashMap<String, LongAdder> perKey = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, LongAdder> perOrder = new ConcurrentHashMap<>();

  StatsRecorder() {
    for (FaultKind k : FaultKind.values()) {
      faults.put(k, new LongAdder());
    }
  }

  void request() {
    requests.increment();
  }

  /** Records one payment created; {@code key} is null for a keyless request. */
  void effect(String key, String order) {
    effects.increment();
    if (key == null) {
      keylessEffects.increment();
    } else {
      perKey.computeIfAbsent(key, k -> new LongAdder()).increment();
    }
    if (order != null) {
      perOrder.computeIfAbsent(order, k -> new LongAdder()).increment();
    }
  }

  void replay() {
    replays.increment();
  }

  void inProgress() {
    status409.increment();
  }

  void mismatch() {
    status422.increment();
  }

  void accepted() {
    status202.increment();
  }

  void poll() {
    polls.increment();
  }

  void fault(FaultKind kind) {
    faults.get(kind).increment();
  }

  ServerStats snapshot() {
    Map<FaultKind, Long> f = new EnumMap<>(FaultKind.class);
    faults.forEach((k, v) -> f.put(k, v.sum()));
    return new ServerStats(requests.sum(), effects.sum(), keylessEffects.sum(), replays.sum(),
        status409.sum(), status422.sum(), status202.sum(), polls.sum(), f,
        sums(perKey), sums(perOrder));
  }

  private static Map<String, Long> sums(Map<String, LongAdder> adders) {
    Map<String, Long> out = new HashMap<>();
    adders.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
