package dev.oncely.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoreException;
import java.time.Duration;

/**
 * Child JVM, one fleet instance: submits its share of the orders (those with
 * {@code n % instances == index}; a restarted instance submits them again, which continues the
 * stored intents) and runs the due-work scheduler until it is SIGKILLed. Prints
 * {@code READY <owner>} once its store is open and {@code SUBMITTED} after its share is submitted.
 * Arguments: JDBC URL, server base URL, index, instances, orders, owner, lease millis.
 */
public final class FleetChild {
  /** Spreads the submissions over a few seconds, so kills hit instances in the middle of work. */
  private static final long SUBMIT_PAUSE_MILLIS = 40;

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
    for (int n = index; n < orders; n += instances) {
      try {
        client.submit(Workload.spec(base, n));
        Thread.sleep(SUBMIT_PAUSE_MILLIS);
      } catch (StoreException e) {
        System.err.println("submit of order " + n + " failed: " + e);
      }
    }
    System.out.println("SUBMITTED");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
