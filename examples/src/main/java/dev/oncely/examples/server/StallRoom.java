package dev.oncely.examples.server;

import com.sun.net.httpserver.HttpExchange;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Holds stalled exchanges without answering and without tying up a handler thread; closes each
 * connection, still unanswered, after the stall duration or when the server closes.
 */
final class StallRoom {
  private final ScheduledExecutorService scheduler;
  private final Set<HttpExchange> held = ConcurrentHashMap.newKeySet();

  StallRoom(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
  }

  void hold(HttpExchange exchange, Duration stallFor) {
    held.add(exchange);
    scheduler.schedule(() -> release(exchange), stallFor.toNanos(), TimeUnit.NANOSECONDS);
  }

  void releaseAll() {
    held.forEach(this::release);
  }

  private void release(HttpExchange exchange) {
    if (held.remove(exchange)) {
      exchange.close();
    }
  }
}
