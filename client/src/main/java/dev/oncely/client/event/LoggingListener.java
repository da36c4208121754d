package dev.oncely.client.event;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The default listener: writes events to the {@code java.util.logging} logger named
 * {@code dev.oncely.client} (on Android it reaches logcat). Attempts and retries at {@code FINE}, outcomes at {@code INFO}, "gave up unknown", mismatches and
 * reconciliations at {@code WARNING}. It prints the intent's scope, operation and short key hash,
 * statuses and delays; never a key, a payload, a URL query or a header value.
 */
public final class LoggingListener implements IntentListener {
  private static final LoggingListener INSTANCE = new LoggingListener();
  private final Logger logger = Logger.getLogger("dev.oncely.client");

  private LoggingListener() {}

  /** The shared instance. */
  public static LoggingListener instance() {
    return INSTANCE;
  }

  @Override
  public void onEvent(IntentEvent event) {
    Level level = levelOf(event);
    if (!logger.isLoggable(level)) {
      return;
    }
    logger.log(level, describe(event));
  }

  private static Level levelOf(IntentEvent event) {
    if (event instanceof IntentEvent.GaveUpUnknown
        || event instanceof IntentEvent.PayloadMismatch
        || event instanceof IntentEvent.NeedsReconciliation
        || event instanceof IntentEvent.BudgetExhausted) {
      return Level.WARNING;
    }
    if (event instanceof IntentEvent.Completed || event instanceof IntentEvent.Rejected) {
      return Level.INFO;
    }
    return Level.FINE;
  }

  /** One line describing {@code event} with no secret in it. */
  static String describe(IntentEvent event) {
    String id = String.valueOf(event.id());
    if (event instanceof IntentEvent.AttemptStarted e) {
      return id + " attempt " + e.attempt() + (e.poll() ? " polls " : " sends ") + e.method()
          + " to " + e.host();
    } else if (event instanceof IntentEvent.AttemptEnded e) {
      return id + " attempt " + e.attempt() + " ended "
          + (e.status() >= 0 ? "with " + e.status() : "without answer: " + e.failure())
          + " after " + e.elapsed().toMillis() + " ms";
    } else if (event instanceof IntentEvent.RetryScheduled e) {
      return id + " attempt " + e.nextAttempt() + " in " + e.delay().toMillis() + " ms: "
          + e.cause();
    } else if (event instanceof IntentEvent.Accepted e) {
      return id + " accepted (202), " + (e.pollUrl() ? "polling status URL" : "will resend");
    } else if (event instanceof IntentEvent.InProgress e) {
      return id + " in progress at server (" + e.status() + ")";
    } else if (event instanceof IntentEvent.PayloadMismatch e) {
      return id + " key conflict: server saw this key with another payload (" + e.status() + ")";
    } else if (event instanceof IntentEvent.Completed e) {
      return id + " completed with " + e.status() + (e.replayed() ? " (replayed)" : "");
    } else if (event instanceof IntentEvent.Rejected e) {
      return id + " rejected with " + e.status();
    } else if (event instanceof IntentEvent.GaveUpUnknown e) {
      return id + " outcome still unknown (" + e.reason() + "): " + e.detail();
    } else if (event instanceof IntentEvent.NeedsReconciliation e) {
      return id + " needs reconciliation: " + e.reason();
    } else if (event instanceof IntentEvent.MalformedRetryAfter e) {
      return id + " ignored malformed Retry-After '" + e.value() + "'";
    } else if (event instanceof IntentEvent.BudgetExhausted e) {
      return id + " retry budget for " + e.host() + " is empty";
    }
    return id + " " + event.getClass().getSimpleName();
  }
}
