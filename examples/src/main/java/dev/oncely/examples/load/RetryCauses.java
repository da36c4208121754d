package dev.oncely.examples.load;

import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts scheduled retries by cause, the engine's safe wording cut to its first clause
 * ({@code no answer (SocketTimeoutException)}, {@code transient answer 503}, {@code 202 accepted},
 * ...). Thread-safe, fast, never throws.
 */
final class RetryCauses implements IntentListener {
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  @Override
  public void onEvent(IntentEvent event) {
    if (event instanceof IntentEvent.RetryScheduled r) {
      counts.computeIfAbsent(bucket(r.cause()), c -> new LongAdder()).increment();
    }
  }

  static String bucket(String cause) {
    if (cause == null) {
      return "unknown";
    }
    int cut = cause.length();
    for (String separator : new String[] {";", ", Retry-After"}) {
      int i = cause.indexOf(separator);
      if (i >= 0 && i < cut) {
        cut = i;
      }
    }
    return cause.substring(0, cut).trim();
  }

  /** The counts so far, sorted by cause. */
  Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((cause, n) -> out.put(cause, n.sum()));
    return out;
  }
}
