package dev.oncely.spring.boot;

import dev.oncely.client.DueWorkScheduler;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a {@link DueWorkScheduler} while the application context runs: started when the context
 * has refreshed, closed when it stops (before the client and the store are closed). A scheduler
 * cannot start again once closed, so a stopped context does not restart it.
 */
public final class DueWorkLifecycle implements SmartLifecycle {
  private final DueWorkScheduler scheduler;
  private volatile boolean running;

  /**
   * Wraps {@code scheduler}, which must not be started yet.
   *
   * @param scheduler the scheduler to run
   * @throws NullPointerException if {@code scheduler} is null
   */
  public DueWorkLifecycle(DueWorkScheduler scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
  }

  /** Starts the scheduler thread. */
  @Override
  public void start() {
    scheduler.start();
    running = true;
  }

  /** Stops the scheduler thread and waits for it; drives it started end with the client. */
  @Override
  public void stop() {
    running = false;
    scheduler.close();
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
