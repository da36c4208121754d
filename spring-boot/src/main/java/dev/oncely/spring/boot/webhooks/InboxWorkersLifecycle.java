package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.inbox.Inbox;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the inbox's workers once the context has refreshed (every handler bean exists) and stops
 * them when it stops, after the web server (a lower phase): running handlers get the inbox's
 * grace, then messages still held run again once their leases run out. The inbox cannot be
 * started again after a stop.
 */
final class InboxWorkersLifecycle implements SmartLifecycle {
  /** Below the web server's phases, so the workers start before it and stop after it. */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final Inbox inbox;
  private volatile boolean running;

  InboxWorkersLifecycle(Inbox inbox) {
    this.inbox = inbox;
  }

  @Override
  public void start() {
    inbox.start();
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    inbox.close();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
