package dev.oncely.client.internal;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Daemon threads named {@code <prefix>-<n>}, for the engine's executors: they never keep a JVM
 * alive, and a thread dump names whose they are.
 */
public final class DaemonThreads implements ThreadFactory {
  private final String prefix;
  private final AtomicInteger count = new AtomicInteger();

  /** Threads named {@code prefix-1}, {@code prefix-2}, ... */
  public DaemonThreads(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public Thread newThread(Runnable task) {
    Thread thread = new Thread(task, prefix + "-" + count.incrementAndGet());
    thread.setDaemon(true);
    return thread;
  }
}
