package dev.oncely.examples.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentStore;
import dev.oncely.persistence.SqliteIntentStore;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxHandler;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job-table consumer on real SQLite files (the job table, the shipments, the inbox's {@link
 * SqliteIntentStore}): a job is shipped once however often the table delivers it, including after
 * its consumer process was SIGKILLed between handling and acknowledging. Time moves by a test
 * clock, so a redelivery needs no waiting.
 */
class JobQueueTest {
  /** How long a claimed job stays hidden. */
  static final Duration VISIBILITY = Duration.ofSeconds(30);
  private static final String ORDER = "{\"order\":\"o-1\"}";

  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();
  private final MovableClock clock = new MovableClock(Instant.now());

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private <T extends AutoCloseable> T opened(T resource) {
    open.add(resource);
    return resource;
  }

  private JobConsumer consumer(JobTable jobs, Shipments shipments, InboxHandler work) {
    IntentStore store = opened(SqliteIntentStore.open(dir.resolve("inbox.db")));
    Inbox inbox = opened(Inbox.builder(store).workers(0).clock(clock).build());
    return new JobConsumer(jobs, inbox, work);
  }

  @Test
  void a_job_redelivered_after_its_consumer_was_killed_between_handling_and_acknowledging_is_shipped_once()
      throws Exception {
    try (JobTable jobs = JobTable.open(dir.resolve("jobs.db"), Clock.systemUTC(), VISIBILITY)) {
      jobs.enqueue("job-1", ORDER);
    }
    Process child = startChild();
    String line;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
        StandardCharsets.UTF_8))) {
      line = out.readLine();
      child.toHandle().destroyForcibly(); // SIGKILL: the job is handled, never acknowledged
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(line).as(stderr()).isEqualTo("once=HANDLED deliveries=1");

    // Past the child's claim's visibility timeout: the table delivers the job again.
    clock.set(Instant.now().plus(VISIBILITY).plusSeconds(1));
    JobTable jobs = opened(JobTable.open(dir.resolve("jobs.db"), clock, VISIBILITY));
    Shipments shipments = opened(Shipments.open(dir.resolve("shipments.db")));
    assertThat(jobs.size()).isEqualTo(1);
    JobConsumer consumer = consumer(jobs, shipments, shipments);

    assertThat(consumer.consumeOne()).isEqualTo(JobConsumer.Outcome.ALREADY_HANDLED);
    assertThat(consumer.consumeOne()).isEqualTo(JobConsumer.Outcome.NO_JOB);
    assertThat(jobs.size()).isZero();
    assertThat(shipments.shipped("job-1")).isEqualTo(1);
  }

  @Test
  void a_job_whose_work_failed_is_not_acknowledged_and_its_redelivery_runs_the_work_again()
      throws Exception {
    JobTable jobs = opened(JobTable.open(dir.resolve("jobs.db"), clock, VISIBILITY));
    Shipments shipments = opened(Shipments.open(dir.resolve("shipments.db")));
    AtomicInteger runs = new AtomicInteger();
    JobConsumer consumer = consumer(jobs, shipments, job -> {
      if (runs.incrementAndGet() == 1) {
        throw new IllegalStateException("the warehouse is offline");
      }
      shipments.handle(job);
    });
    jobs.enqueue("job-1", ORDER);

    JobConsumer.Outcome failed = consumer.consumeOne();
    JobConsumer.Outcome hidden = consumer.consumeOne();
    clock.move(VISIBILITY.plusSeconds(1));
    JobConsumer.Outcome redelivered = consumer.consumeOne();

    assertThat(failed).isEqualTo(JobConsumer.Outcome.NOT_ACKNOWLEDGED);
    assertThat(hidden).isEqualTo(JobConsumer.Outcome.NO_JOB);
    assertThat(redelivered).isEqualTo(JobConsumer.Outcome.HANDLED);
    assertThat(runs).hasValue(2);
    assertThat(jobs.size()).isZero();
    assertThat(shipments.shipped("job-1")).isEqualTo(1);
  }

  @Test
  void a_job_enqueued_twice_by_a_retrying_producer_is_shipped_once() throws Exception {
    JobTable jobs = opened(JobTable.open(dir.resolve("jobs.db"), clock, VISIBILITY));
    Shipments shipments = opened(Shipments.open(dir.resolve("shipments.db")));
    JobConsumer consumer = consumer(jobs, shipments, shipments);
    jobs.enqueue("job-1", ORDER);
    jobs.enqueue("job-1", ORDER);
    jobs.enqueue("job-2", "{\"order\":\"o-2\"}");

    List<JobConsumer.Outcome> outcomes = List.of(consumer.consumeOne(), consumer.consumeOne(),
        consumer.consumeOne(), consumer.consumeOne());

    assertThat(outcomes).containsExactly(JobConsumer.Outcome.HANDLED,
        JobConsumer.Outcome.ALREADY_HANDLED, JobConsumer.Outcome.HANDLED,
        JobConsumer.Outcome.NO_JOB);
    assertThat(shipments.shipped("job-1")).isEqualTo(1);
    assertThat(shipments.shipped("job-2")).isEqualTo(1);
    assertThat(jobs.size()).isZero();
  }

  private Process startChild() throws Exception {
    Path tmp = Files.createDirectories(dir.resolve("child-tmp"));
    return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
        "-Djava.io.tmpdir=" + tmp, "-Dorg.sqlite.tmpdir=" + tmp,
        "-cp", System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path")),
        JobConsumerChild.class.getName(), dir.toString())
        .redirectError(dir.resolve("child.err").toFile()).start();
  }

  private String stderr() {
    try {
      return "child stderr: " + Files.readString(dir.resolve("child.err"));
    } catch (java.io.IOException e) {
      return "child stderr unreadable: " + e;
    }
  }

  /** A clock a test moves forward by hand. */
  private static final class MovableClock extends Clock {
    private volatile Instant now;

    MovableClock(Instant start) {
      this.now = start;
    }

    void move(Duration by) {
      now = now.plus(by);
    }

    void set(Instant instant) {
      now = instant;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
