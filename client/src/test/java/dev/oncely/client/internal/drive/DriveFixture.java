package dev.oncely.client.internal.drive;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.NetworkGate;
import dev.oncely.client.Reconciler;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.internal.Defaults;
import dev.oncely.client.internal.EngineClock;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.MaxJitter;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.payload.Fingerprints;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The parts a drive runs on in these tests, all real but the wire: an {@link InMemoryIntentStore},
 * a {@link ManualClock} (waits move it, nothing sleeps), backoff at its ceiling ({@link MaxJitter},
 * so waits are exact), the IETF dialect, and a listener that keeps every event.
 */
final class DriveFixture {
  static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
  static final String URL = "https://api.example.test/payments";
  static final String JSON = "application/json";
  static final byte[] BODY = "{\"amount\":1000,\"currency\":\"EUR\"}"
      .getBytes(StandardCharsets.UTF_8);
  static final Duration KEY_RETENTION = Duration.ofHours(1);

  /** 4 attempts, backoff 100 ms doubling to a 5 s cap, a 30 s deadline, 2 s per attempt. */
  static final RetryPolicy POLICY = RetryPolicy.builder()
      .maxAttempts(4)
      .baseDelay(Duration.ofMillis(100))
      .maxDelay(Duration.ofSeconds(5))
      .deadline(Duration.ofSeconds(30))
      .attemptTimeout(Duration.ofSeconds(2))
      .build();

  final ManualClock clock = new ManualClock(T0);
  final InMemoryIntentStore store = new InMemoryIntentStore();
  final List<IntentEvent> events = new CopyOnWriteArrayList<>();
  final RecordingSleeper sleeper = new RecordingSleeper(clock);

  /** Settings with {@code policy}, {@code budget} and {@code gate}; the listener is given. */
  DriveSettings settings(RetryPolicy policy, RetryBudget budget, NetworkGate gate,
      IntentListener listener) {
    return new DriveSettings(store, Dialects.ietf(), policy, budget, listener,
        EngineClock.of(clock), sleeper, new MaxJitter(), gate, KEY_RETENTION,
        Duration.ofDays(1), Reconciler.MANUAL, null, Set.of(), Defaults.MAX_RESPONSE_BYTES, false);
  }

  /** Settings with {@code policy} and {@code budget}, an open gate, events kept in {@link #events}. */
  DriveSettings settings(RetryPolicy policy, RetryBudget budget) {
    return settings(policy, budget, NetworkGate.ALWAYS_OPEN, events::add);
  }

  /** Settings with {@link #POLICY} and an unlimited budget. */
  DriveSettings settings() {
    return settings(POLICY, RetryBudget.unlimited());
  }

  /** The record a new intent {@code key} with {@code body} would be created as, claimed. */
  static IntentRecord candidate(DriveSettings settings, String key, byte[] body) {
    IntentId id = IntentId.of("tenant-1", "create-payment", key);
    return RecordKeeper.fresh(settings, IntentState.IN_FLIGHT)
        .id(id)
        .method("POST")
        .url(URL)
        .body(body, JSON)
        .fingerprint(Fingerprints.ofPayload(body, JSON, Set.of()))
        .keyWireForm(settings.dialect().keyHeader(), settings.dialect().formatKey(key))
        .build();
  }

  /** The claimed record of a new intent {@code key}. */
  static IntentRecord candidate(DriveSettings settings, String key) {
    return candidate(settings, key, BODY);
  }
}
