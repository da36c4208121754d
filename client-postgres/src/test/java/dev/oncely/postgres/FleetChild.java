package dev.oncely.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoreException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;

/**
 * Child JVM, one fleet instance: submits its share of the orders (those with
 * {@code n % instances == index}; a restarted instance submits them again, which continues the
 * stored intents) and runs the due-work scheduler until it is SIGKILLed or its stdin closes. Prints
 * {@code READY <owner>} once its store is open and {@code SUBMITTED} after its share is submitted.
 * Arguments: JDBC URL, server base URL, index, instances, orders, owner, lease millis.
 */
public final class FleetChild {
  /**
   * Intents of this instance in flight at once: the next is submitted when the oldest has its
   * outcome, so the server's slow effects spread the submissions over seconds and kills hit
   * instances in the middle of work, paced by the work itself rather than a timer.
   */
  private static final int IN_FLIGHT = 4;

  private FleetChild() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String base = args[1];
    int index = Integer.parseInt(args[2]);
    int instances = Integer.parseInt(args[3]);
    int orders = Integer.parseInt(args[4]);
    String owner = args[5];
    Duration lease = Duration.ofMillis(Long.parseLong(args[6]));
    HikariDataSource pool = PgTestDatabase.pool(url, 8);
    // A child started on a loaded machine (CI runs the whole build beside it) may wait longer than
    // the tests' 2 s for its first connection; it is killed on purpose, never left waiting.
    pool.setConnectionTimeout(15_000);
    PostgresIntentStore store = PostgresIntentStore.builder(pool).owner(owner).lease(lease).build();
    IdempotentClient client = IdempotentClient.builder().store(store)
        .retryPolicy(RetryPolicy.builder().baseDelay(Duration.ofMillis(20))
            .maxDelay(Duration.ofMillis(200)).deadline(Duration.ofSeconds(5))
            .attemptTimeout(Duration.ofSeconds(2)).build())
        .build();
    DueWorkScheduler scheduler = DueWorkScheduler.builder(client)
        .interval(Duration.ofMillis(200)).build();
    System.out.println("READY " + owner);
    System.out.flush();
    scheduler.start();
    Deque<CompletableFuture<IntentOutcome>> inFlight = new ArrayDeque<>();
    for (int n = index; n < orders; n += instances) {
      if (inFlight.size() == IN_FLIGHT) {
        inFlight.removeFirst().handle((outcome, failure) -> null).join();
      }
      try {
        inFlight.addLast(client.submit(Workload.spec(base, n)));
      } catch (StoreException e) {
        System.err.println("submit of order " + n + " failed: " + e);
      }
    }
    System.out.println("SUBMITTED");
    System.out.flush();
    ChildJvm.holdUntilStdinCloses();
  }
}
