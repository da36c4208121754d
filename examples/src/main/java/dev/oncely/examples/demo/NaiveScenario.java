package dev.oncely.examples.demo;

import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerStats;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The comparison half of the demo: the same workload and the same faults, sent by a {@link
 * NaiveClient} (plain OkHttp, plain retries, no keys) to a reference server that accepts keyless
 * payments. It is not killed: it has nothing it could resume from, and it charges twice anyway.
 */
public final class NaiveScenario {
  private final DemoSettings settings;
  private final ProgressBar bar;

  /** A scenario that reports progress on {@code bar}. */
  public NaiveScenario(DemoSettings settings, ProgressBar bar) {
    this.settings = settings;
    this.bar = bar;
  }

  /**
   * Runs the scenario and returns what happened.
   *
   * @throws DemoFailedException if the client fails unexpectedly
   */
  public RunSummary run() throws DemoFailedException, InterruptedException {
    long started = System.nanoTime();
    int total = settings.intents();
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(settings.faults())
        .slowShare(settings.slowShare())
        .acceptKeyless(true)
        .build()
        .start()) {
      NaiveClient client = new NaiveClient(server.baseUrl(), settings.attemptTimeout());
      CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
        try {
          client.run(total, settings.concurrency());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      while (!finished(done)) {
        bar.update("naive", client.finished(), total, "req " + server.stats().requests());
      }
      // Payments it saw accepted with 202 are created by the server a little later; count them.
      server.finishSlowOperationsNow();
      ServerStats stats = server.stats();
      bar.finish("naive", client.finished(), total, "req " + stats.requests());
      return new RunSummary("naive OkHttp retries", total, client.completed(), 0, stats, -1,
          Duration.ofNanos(System.nanoTime() - started));
    }
  }

  private static boolean finished(CompletableFuture<Void> done)
      throws DemoFailedException, InterruptedException {
    try {
      done.get(SdkScenario.TICK.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      throw new DemoFailedException("the naive client failed: " + e.getCause());
    }
  }
}
