package dev.oncely.examples.queue;

import dev.oncely.server.inbox.Delivery;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxDeliveryException;
import dev.oncely.server.inbox.InboxHandler;
import java.util.Objects;
import java.util.Optional;

/**
 * A consumer of a {@link JobTable} whose whole dedupe is one {@link Inbox#once} call: claim a job,
 * hand it to {@code once} under (source {@value #SOURCE}, the job's id), acknowledge it when {@code
 * once} returns, and leave it unacknowledged when {@code once} throws.
 *
 * <pre>{@code
 * JobTable.Job job = jobs.claim().get();                                // one delivery
 * Delivery d = inbox.once("jobs", job.id(), job.payload(), shipments);  // the dedupe
 * jobs.acknowledge(job);                                                // only after once returned
 * }</pre>
 *
 * <p>What that buys, delivery by delivery:
 *
 * <ul>
 *   <li>A job redelivered after its handler finished (the consumer died, or failed to acknowledge,
 *       after {@code once} returned; or the producer enqueued it twice): {@code once} finds it
 *       handled, returns {@link Delivery#ALREADY_HANDLED} without running the work, and this
 *       consumer acknowledges it.
 *   <li>A job whose work threw: {@code once} counts the failure and throws; the job stays
 *       unacknowledged, comes back after its visibility timeout, and runs again.
 *   <li>A job whose consumer died inside the work: the message stays held until its lease (60 s by
 *       default) runs out, then the next delivery runs the work again. The work ran at least once
 *       and maybe twice: make it idempotent, or put its effect in the same PostgreSQL transaction
 *       as the message ({@code PostgresInbox}) for exactly once.
 * </ul>
 *
 * Not thread-safe: one consumer per thread (several may share the table and the inbox).
 */
public final class JobConsumer {
  /** The inbox source of every job: a job is the message (jobs, job id). */
  public static final String SOURCE = "jobs";

  private final JobTable jobs;
  private final Inbox inbox;
  private final InboxHandler work;

  /** A consumer of {@code jobs} running {@code work} once per job, deduplicated by {@code inbox}. */
  public JobConsumer(JobTable jobs, Inbox inbox, InboxHandler work) {
    this.jobs = Objects.requireNonNull(jobs, "jobs");
    this.inbox = Objects.requireNonNull(inbox, "inbox");
    this.work = Objects.requireNonNull(work, "work");
  }

  /** What one {@link #consumeOne()} did. */
  public enum Outcome {
    /** No job was visible. */
    NO_JOB,
    /** The work ran and finished; the job is acknowledged. */
    HANDLED,
    /** The job was handled before (a redelivery): the work did not run; acknowledged. */
    ALREADY_HANDLED,
    /** The job failed as often as the inbox allows; acknowledged, kept dead in the inbox. */
    DEAD_LETTERED,
    /** The work failed, or another consumer holds the job: not acknowledged, redelivered later. */
    NOT_ACKNOWLEDGED
  }

  /** Claims the next visible job, handles it once, and acknowledges it if {@code once} returned. */
  public Outcome consumeOne() {
    Optional<JobTable.Job> claimed = jobs.claim();
    if (claimed.isEmpty()) {
      return Outcome.NO_JOB;
    }
    Delivery delivery;
    try {
      delivery = handle(claimed.get());
    } catch (InboxDeliveryException e) {
      return Outcome.NOT_ACKNOWLEDGED;
    }
    jobs.acknowledge(claimed.get());
    return switch (delivery) {
      case HANDLED -> Outcome.HANDLED;
      case ALREADY_HANDLED -> Outcome.ALREADY_HANDLED;
      case DEAD_LETTERED -> Outcome.DEAD_LETTERED;
    };
  }

  /**
   * The dedupe: runs the work on {@code job} unless its id was handled before. Acknowledge the job
   * when this returns, whatever it returns; not when it throws.
   *
   * @throws InboxDeliveryException if the work failed this time (counted), or another consumer
   *     holds the job now
   */
  public Delivery handle(JobTable.Job job) throws InboxDeliveryException {
    return inbox.once(SOURCE, job.id(), job.payload(), work);
  }
}
