package dev.oncely.examples.queue;

import dev.oncely.client.IntentStore;
import dev.oncely.persistence.SqliteIntentStore;
import dev.oncely.server.inbox.Delivery;
import dev.oncely.server.inbox.Inbox;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;

/**
 * A consumer process for {@link JobQueueTest}: on the files in directory {@code args[0]}, claims
 * one job and hands it to {@link JobConsumer#handle} (the {@code once} call), prints {@code
 * once=<delivery> deliveries=<n>} and then waits, without acknowledging, until the parent kills
 * it with SIGKILL: a consumer that died between handling a job and acknowledging it.
 */
public final class JobConsumerChild {
  private JobConsumerChild() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    JobTable jobs = JobTable.open(dir.resolve("jobs.db"), Clock.systemUTC(),
        JobQueueTest.VISIBILITY);
    Shipments shipments = Shipments.open(dir.resolve("shipments.db"));
    IntentStore store = SqliteIntentStore.open(dir.resolve("inbox.db"));
    Inbox inbox = Inbox.builder(store).workers(0).build();
    JobConsumer consumer = new JobConsumer(jobs, inbox, shipments);
    JobTable.Job job = jobs.claim().orElseThrow();
    Delivery delivery = consumer.handle(job);
    System.out.println("once=" + delivery + " deliveries=" + job.deliveries());
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
