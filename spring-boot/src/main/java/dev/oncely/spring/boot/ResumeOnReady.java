package dev.oncely.spring.boot;

import dev.oncely.client.IntentOutcome;
import dev.oncely.client.StoreException;
import dev.oncely.spring.web.OncelyClientHttpRequestFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

/**
 * Drives every unfinished intent of the store again once the application is ready ({@link
 * OncelyClientHttpRequestFactory#resumePending}), so intents a crash or a shutdown left in flight
 * or pending reach their outcome with their stored key and bytes, whichever entry point wrote
 * them. The calls go through the factory's OkHttp client (the app's interceptors add credentials;
 * a {@code RestClient} call of the same intent runs first, the resume then answers from its
 * record); their outcomes go to the interceptor's listeners, and once the last has ended one
 * {@code INFO} line counts them by outcome ({@code Oncely resumed 12 unfinished intents at
 * start-up: 10 completed, 2 still pending}), never naming a key. A store that cannot list its
 * records is logged, never fails the start: the due-work scheduler tries again at its next tick.
 */
public final class ResumeOnReady implements ApplicationListener<ApplicationReadyEvent> {
  private static final Logger LOG = Logger.getLogger(ResumeOnReady.class.getName());

  private final OncelyClientHttpRequestFactory factory;

  /**
   * Resumes the unfinished intents of {@code factory}'s interceptor store when the application is
   * ready.
   *
   * @param factory the request factory whose client the resumed calls go through
   * @throws NullPointerException if {@code factory} is null
   */
  public ResumeOnReady(OncelyClientHttpRequestFactory factory) {
    this.factory = Objects.requireNonNull(factory, "factory");
  }

  /** The outcomes of the futures that completed normally. */
  private static List<IntentOutcome> ended(List<CompletableFuture<IntentOutcome>> futures) {
    List<IntentOutcome> ended = new ArrayList<>(futures.size());
    for (CompletableFuture<IntentOutcome> future : futures) {
      if (!future.isCompletedExceptionally()) {
        ended.add(future.join());
      }
    }
    return ended;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    try {
      List<CompletableFuture<IntentOutcome>> resumed = factory.resumePending(outcome -> { });
      if (resumed.isEmpty()) {
        LOG.info("Oncely found no unfinished intents at start-up");
        return;
      }
      CompletableFuture.allOf(resumed.toArray(CompletableFuture[]::new)).whenComplete(
          (done, failure) -> LOG.info(() -> "Oncely resumed "
              + OutcomeCounts.intents(resumed.size()) + " at start-up: "
              + OutcomeCounts.of(ended(resumed))));
    } catch (StoreException e) {
      LOG.log(Level.WARNING, "listing unfinished intents failed; the due-work scheduler retries", e);
    } catch (IllegalStateException e) {
      LOG.log(Level.WARNING, "unfinished intents are not resumed: " + e.getMessage(), e);
    }
  }
}
