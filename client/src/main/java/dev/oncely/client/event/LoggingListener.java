package dev.oncely.client.event;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.codehaus.mojo.animal_sniffer.IgnoreJRERequirement;

/**
 * The default listener: writes one line per event to the {@link System.Logger} named
 * {@code dev.oncely.client}, so an app routes it like the rest of its logs (to SLF4J/Logback with
 * {@code org.slf4j:slf4j-jdk-platform-logging}, to Log4j with {@code log4j-jpl}). Without a bridge
 * the JDK would hand each line to the {@code java.util.logging} logger of that name; the listener
 * then writes there itself, at the same levels, naming itself as the line's source, which spares
 * {@code java.util.logging} a stack walk per line to find it. Where {@code System.Logger} does not
 * exist (Android) the same lines go to that {@code java.util.logging} logger too, which reaches
 * logcat.
 *
 * <p>Levels: durable creates, attempts, retries, waits and completions at {@code DEBUG}
 * ({@code FINE} in {@code java.util.logging}): the happy path is silent at the usual
 * {@code INFO} threshold, as in OkHttp, and costs nothing there (a line per intent through a
 * flushing file handler is a measurable share of the client's CPU: docs/benchmarks.md).
 * Rejections at {@code INFO}; "gave up unknown", mismatches, reconciliations, retry-budget refusals and ignored
 * key headers at {@code WARNING}. A line is built only when its level is enabled. It prints the intent's scope, operation and short key
 * hash, statuses and delays; never a key, a payload, a URL query or a header value, nor any other
 * value the server sent (a redirect's or status URL's target, a malformed {@code Retry-After}).
 */
public final class LoggingListener implements IntentListener {
  private static final String LOGGER_NAME = "dev.oncely.client";
  private static final LoggingListener INSTANCE = new LoggingListener(Sink.pick());
  private final Sink sink;

  private LoggingListener(Sink sink) {
    this.sink = sink;
  }

  /** Writes to {@code logger} instead of the default one; for tests of what is written. */
  @IgnoreJRERequirement
  static LoggingListener to(System.Logger logger) {
    return new LoggingListener(new SystemLoggerSink(logger));
  }

  /** The shared instance. */
  public static LoggingListener instance() {
    return INSTANCE;
  }

  @Override
  public void onEvent(IntentEvent event) {
    Severity severity = severityOf(event);
    if (sink.enabled(severity)) {
      sink.log(severity, describe(event));
    }
  }

  /** Which logging API this listener writes to: {@code "System.Logger"} or {@code "java.util.logging"}. */
  String backend() {
    return sink.name();
  }

  static Severity severityOf(IntentEvent event) {
    if (event instanceof IntentEvent.GaveUpUnknown
        || event instanceof IntentEvent.PayloadMismatch
        || event instanceof IntentEvent.NeedsReconciliation
        || event instanceof IntentEvent.BudgetExhausted
        || event instanceof IntentEvent.KeyHeaderIgnored) {
      return Severity.WARNING;
    }
    if (event instanceof IntentEvent.Rejected) {
      return Severity.INFO;
    }
    return Severity.DEBUG;
  }

  /** The three levels the listener uses. */
  enum Severity {
    DEBUG, INFO, WARNING
  }

  /** Where lines go. */
  private interface Sink {
    boolean enabled(Severity severity);

    void log(Severity severity, String line);

    String name();

    /**
     * {@code System.Logger} where the platform has it (every JVM from 9) and a bridge replaced the
     * JDK's own backend, else JUL: on Android, and on a JVM whose {@code System.Logger} is the
     * JDK's, which writes to JUL anyway.
     */
    static Sink pick() {
      try {
        Class.forName("java.lang.System$Logger");
      } catch (ClassNotFoundException | LinkageError e) {
        return new JulSink(Logger.getLogger(LOGGER_NAME));
      }
      return SystemLoggerSink.jdkBackend()
          ? new JulSink(Logger.getLogger(LOGGER_NAME))
          : SystemLoggerSink.named(LOGGER_NAME);
    }
  }

  /** Writes to a {@code System.Logger}; never loaded where that type is missing. */
  @IgnoreJRERequirement
  private static final class SystemLoggerSink implements Sink {
    /** The JDK's {@code LoggerFinder} when {@code java.logging} is present and no bridge is. */
    private static final String JDK_JUL_FINDER = "sun.util.logging.internal.LoggingProviderImpl";
    private final System.Logger logger;

    SystemLoggerSink(System.Logger logger) {
      this.logger = logger;
    }

    static Sink named(String name) {
      return new SystemLoggerSink(System.getLogger(name));
    }

    /** Whether {@code System.Logger} is the JDK's own, backed by {@code java.util.logging}. */
    static boolean jdkBackend() {
      try {
        return JDK_JUL_FINDER.equals(System.LoggerFinder.getLoggerFinder().getClass().getName());
      } catch (SecurityException | LinkageError e) {
        return false;
      }
    }

    @Override
    public boolean enabled(Severity severity) {
      return logger.isLoggable(level(severity));
    }

    @Override
    public void log(Severity severity, String line) {
      logger.log(level(severity), line);
    }

    @Override
    public String name() {
      return "System.Logger";
    }

    private static System.Logger.Level level(Severity severity) {
      switch (severity) {
        case WARNING:
          return System.Logger.Level.WARNING;
        case INFO:
          return System.Logger.Level.INFO;
        default:
          return System.Logger.Level.DEBUG;
      }
    }
  }

  /** Writes to a {@code java.util.logging} logger, for platforms without {@code System.Logger}. */
  private static final class JulSink implements Sink {
    private static final String SOURCE_CLASS = LoggingListener.class.getName();
    private final Logger logger;

    JulSink(Logger logger) {
      this.logger = logger;
    }

    @Override
    public boolean enabled(Severity severity) {
      return logger.isLoggable(level(severity));
    }

    /** The source named on every record, so JUL never walks the stack to infer it. */
    @Override
    public void log(Severity severity, String line) {
      logger.logp(level(severity), SOURCE_CLASS, "onEvent", line);
    }

    @Override
    public String name() {
      return "java.util.logging";
    }

    private static Level level(Severity severity) {
      switch (severity) {
        case WARNING:
          return Level.WARNING;
        case INFO:
          return Level.INFO;
        default:
          return Level.FINE;
      }
    }
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
      return id + " ignored a malformed Retry-After (" + e.length() + " characters)";
    } else if (event instanceof IntentEvent.BudgetExhausted e) {
      return id + " retry budget for " + e.host() + " is empty";
    } else if (event instanceof IntentEvent.Recorded) {
      return id + " recorded durably";
    } else if (event instanceof IntentEvent.KeyHeaderIgnored e) {
      return id + " ignored an idempotency key header set by " + e.source()
          + ": the key header belongs to the SDK";
    }
    return id + " " + event.getClass().getSimpleName();
  }
}
