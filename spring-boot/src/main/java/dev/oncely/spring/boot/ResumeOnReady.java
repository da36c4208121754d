package dev.oncely.spring.boot;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.spi.StoreException;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

/**
 * Drives every unfinished intent of the client's store again once the application is ready
 * ({@link IdempotentClient#resumePending()}), so intents a crash or a shutdown left in flight or
 * pending reach their outcome with their stored key and bytes. The drives run on the client's
 * executor; their outcomes go to the client's listeners. A store that cannot list its records is
 * logged, never fails the start: the due-work scheduler tries again at its next tick.
 */
public final class ResumeOnReady implements ApplicationListener<ApplicationReadyEvent> {
  private static final Logger LOG = Logger.getLogger(ResumeOnReady.class.getName());

  private final IdempotentClient client;

  /**
   * Resumes {@code client}'s unfinished intents when the application is ready.
   *
   * @param client the client whose store is resumed
   * @throws NullPointerException if {@code client} is null
   */
  public ResumeOnReady(IdempotentClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    try {
      int resumed = client.resumePending().size();
      LOG.fine(() -> "resuming " + resumed + " unfinished intents");
    } catch (StoreException e) {
      LOG.log(Level.WARNING, "listing unfinished intents failed; the due-work scheduler retries", e);
    }
  }
}
