package dev.oncely.server.internal;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/** The one scheduler thread that renews the leases of running handlers. */
public final class DaemonScheduler {
  private DaemonScheduler() {}

  /** A single daemon thread named {@code name}, dropping canceled renewals at once. */
  public static ScheduledExecutorService create(String name) {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = Executors.defaultThreadFactory().newThread(r);
      t.setName(name);
      t.setDaemon(true);
      return t;
    });
    s.setRemoveOnCancelPolicy(true);
    // Started now, by whoever builds the endpoints (an app's start-up), not inside the first
    // request, where it would inherit a request thread's context (a web app's class loader).
    s.prestartAllCoreThreads();
    return s;
  }
}
