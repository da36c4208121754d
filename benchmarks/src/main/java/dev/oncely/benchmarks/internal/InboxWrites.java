package dev.oncely.benchmarks.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Passes every call to a real store and counts, by the thread that makes it, the writes an inbox
 * makes: on the receiving side (the container's threads, before the {@code 2xx}) and on the
 * inbox's own threads (the dispatcher and the workers, whose names start with {@value
 * #INBOX_THREADS}); and the claims ({@code claimDue} calls that took something) and releases the
 * dispatcher makes, which are committed writes on PostgreSQL and in memory on the embedded
 * engines.
 */
public final class InboxWrites extends ForwardingIntentStore {
  /** The name prefix of the inbox's threads. */
  public static final String INBOX_THREADS = "oncely-inbox";

  private final AtomicLong receivingCreates = new AtomicLong();
  private final AtomicLong receivingUpdates = new AtomicLong();
  private final AtomicLong inboxCreates = new AtomicLong();
  private final AtomicLong inboxUpdates = new AtomicLong();
  private final AtomicLong claims = new AtomicLong();
  private final AtomicLong releases = new AtomicLong();

  /** Counts the calls made through this wrapper to {@code delegate}. */
  public InboxWrites(IntentStore delegate) {
    super(delegate);
  }

  /** What was counted at one moment. */
  public record Counts(long receivingCreates, long receivingUpdates, long inboxCreates,
      long inboxUpdates, long claims, long releases) {
    /** This minus {@code before}. */
    public Counts minus(Counts before) {
      return new Counts(receivingCreates - before.receivingCreates,
          receivingUpdates - before.receivingUpdates, inboxCreates - before.inboxCreates,
          inboxUpdates - before.inboxUpdates, claims - before.claims,
          releases - before.releases);
    }
  }

  /** The counts so far. */
  public Counts counts() {
    return new Counts(receivingCreates.get(), receivingUpdates.get(), inboxCreates.get(),
        inboxUpdates.get(), claims.get(), releases.get());
  }

  private static boolean onInboxThread() {
    return Thread.currentThread().getName().startsWith(INBOX_THREADS);
  }

  @Override
  public void create(IntentRecord record) {
    super.create(record);
    (onInboxThread() ? inboxCreates : receivingCreates).incrementAndGet();
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    boolean done = super.compareAndSet(expected, replacement);
    (onInboxThread() ? inboxUpdates : receivingUpdates).incrementAndGet();
    return done;
  }

  @Override
  public List<IntentRecord> claimDue(Instant now, int limit) {
    List<IntentRecord> claimed = super.claimDue(now, limit);
    if (!claimed.isEmpty()) {
      claims.incrementAndGet();
    }
    return claimed;
  }

  @Override
  public void release(IntentId id) {
    super.release(id);
    releases.incrementAndGet();
  }
}
