package dev.oncely.server.inbox;

import dev.oncely.server.internal.InboxRecords;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What one inbox instance reported, as a listener: a history to wait on (each wait for an event
 * returns the next occurrence not yet waited for, whatever else happened in between) and to check
 * that something never happened.
 */
public final class Events implements InboxListener {
  private final List<InboxEvent> all = new ArrayList<>();
  /** How many occurrences of each (kind, source, key) a wait returned already. */
  private final Map<InboxEvent, Integer> waited = new HashMap<>();

  @Override
  public synchronized void onEvent(InboxEvent event) {
    all.add(event);
    notifyAll();
  }

  /**
   * Waits for the next occurrence of event {@code kind} of message {@code messageId} of {@code
   * source}; fails after 30 s.
   */
  public synchronized InboxEvent await(InboxEvent.Kind kind, String source, String messageId)
      throws InterruptedException {
    InboxEvent wanted = new InboxEvent(kind, source, InboxRecords.idOf(source, messageId)
        .safeKey());
    int occurrence = waited.merge(wanted, 1, Integer::sum);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (countOf(wanted) < occurrence) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no event " + kind + " of " + source + " " + messageId
            + " (occurrence " + occurrence + ") within 30 s; events: " + all);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return wanted;
  }

  /** How many events {@code kind} were reported of message {@code messageId} of {@code source}. */
  public synchronized long count(InboxEvent.Kind kind, String source, String messageId) {
    return countOf(new InboxEvent(kind, source, InboxRecords.idOf(source, messageId).safeKey()));
  }

  /** Every event reported so far, in order. */
  public synchronized List<InboxEvent> all() {
    return new ArrayList<>(all);
  }

  private long countOf(InboxEvent wanted) {
    return all.stream().filter(wanted::equals).count();
  }
}
