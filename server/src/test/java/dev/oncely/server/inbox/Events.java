package dev.oncely.server.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.server.internal.InboxRecords;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What one inbox instance reported, as a listener: a queue to wait on and a log to check that
 * something never happened.
 */
final class Events implements InboxListener {
  private final BlockingQueue<InboxEvent> queue = new LinkedBlockingQueue<>();
  private final List<InboxEvent> all = new CopyOnWriteArrayList<>();

  @Override
  public void onEvent(InboxEvent event) {
    all.add(event);
    queue.add(event);
  }

  /** Waits for the next event {@code kind} of message {@code messageId} of {@code source}. */
  InboxEvent await(InboxEvent.Kind kind, String source, String messageId)
      throws InterruptedException {
    String safeKey = InboxRecords.idOf(source, messageId).safeKey();
    while (true) {
      InboxEvent e = queue.poll(30, TimeUnit.SECONDS);
      assertThat(e).as("an event " + kind + " of " + source + " " + messageId).isNotNull();
      if (e.kind() == kind && e.source().equals(source) && e.safeKey().equals(safeKey)) {
        return e;
      }
    }
  }

  /** How many events {@code kind} were reported of message {@code messageId} of {@code source}. */
  long count(InboxEvent.Kind kind, String source, String messageId) {
    String safeKey = InboxRecords.idOf(source, messageId).safeKey();
    return all.stream().filter(e -> e.kind() == kind && e.source().equals(source)
        && e.safeKey().equals(safeKey)).count();
  }

  /** Every event reported so far, in order. */
  List<InboxEvent> all() {
    return new ArrayList<>(all);
  }
}
