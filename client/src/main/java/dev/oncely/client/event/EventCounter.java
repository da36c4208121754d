package dev.oncely.client.event;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * An {@link IntentListener} that counts events by kind, for demos, load drivers and tests.
 * Thread-safe; counts only grow (use a new counter to start again).
 */
public final class EventCounter implements IntentListener {
  private final Map<Class<? extends IntentEvent>, LongAdder> counts = new ConcurrentHashMap<>();

  /** Creates a counter with every count at zero. */
  public EventCounter() {}

  @Override
  public void onEvent(IntentEvent event) {
    counts.computeIfAbsent(event.getClass(), c -> new LongAdder()).increment();
  }

  /** How many events of {@code kind} were seen, for example {@code IntentEvent.Accepted.class}. */
  public long count(Class<? extends IntentEvent> kind) {
    LongAdder adder = counts.get(kind);
    return adder == null ? 0 : adder.sum();
  }

  /** Attempts started (first sends, retries and polls). */
  public long attempts() {
    return count(IntentEvent.AttemptStarted.class);
  }

  /** Retries scheduled. */
  public long retries() {
    return count(IntentEvent.RetryScheduled.class);
  }

  /** {@code 202 Accepted} answers. */
  public long accepted() {
    return count(IntentEvent.Accepted.class);
  }

  /** "In progress" answers (IETF {@code 409}). */
  public long inProgress() {
    return count(IntentEvent.InProgress.class);
  }

  /** Payload mismatch answers. */
  public long mismatches() {
    return count(IntentEvent.PayloadMismatch.class);
  }

  /** Intents completed. */
  public long completed() {
    return count(IntentEvent.Completed.class);
  }

  /** Intents rejected. */
  public long rejected() {
    return count(IntentEvent.Rejected.class);
  }

  /** Drives that stopped with the outcome unknown. */
  public long gaveUpUnknown() {
    return count(IntentEvent.GaveUpUnknown.class);
  }

  /** Intents sent to reconciliation. */
  public long needsReconciliation() {
    return count(IntentEvent.NeedsReconciliation.class);
  }

  /** Ignored, malformed {@code Retry-After} values. */
  public long malformedRetryAfter() {
    return count(IntentEvent.MalformedRetryAfter.class);
  }

  /** Retries refused by an empty retry budget. */
  public long budgetExhausted() {
    return count(IntentEvent.BudgetExhausted.class);
  }

  @Override
  public String toString() {
    return "EventCounter{attempts=" + attempts() + ", retries=" + retries() + ", accepted="
        + accepted() + ", inProgress=" + inProgress() + ", completed=" + completed()
        + ", rejected=" + rejected() + ", mismatches=" + mismatches() + ", gaveUpUnknown="
        + gaveUpUnknown() + ", needsReconciliation=" + needsReconciliation() + "}";
  }
}
