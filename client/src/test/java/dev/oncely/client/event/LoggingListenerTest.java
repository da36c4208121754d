package dev.oncely.client.event;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.client.PendingReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class LoggingListenerTest {
  private static final String KEY = "sEcReTkEy0123456789abcdefghijklm";
  private static final IntentId ID = IntentId.of("tenant-a", "create-payment", KEY);

  private static final List<IntentEvent> ALL = List.of(
        new IntentEvent.AttemptStarted(ID, 1, "POST", "api.test", false),
        new IntentEvent.AttemptEnded(ID, 1, -1, "SocketTimeoutException", Duration.ofMillis(5)),
        new IntentEvent.RetryScheduled(ID, 2, Duration.ofMillis(80), "no answer"),
        new IntentEvent.Accepted(ID, true),
        new IntentEvent.InProgress(ID, 409),
        new IntentEvent.PayloadMismatch(ID, 422),
        new IntentEvent.Completed(ID, 201, true),
        new IntentEvent.Rejected(ID, 400),
        new IntentEvent.GaveUpUnknown(ID, PendingReason.DEADLINE_EXCEEDED, "no answer"),
        new IntentEvent.NeedsReconciliation(ID, "old"),
        new IntentEvent.MalformedRetryAfter(ID, 4),
        new IntentEvent.BudgetExhausted(ID, "api.test"),
        new IntentEvent.KeyHeaderIgnored(ID, "headerProvider"),
        new IntentEvent.Recorded(ID));

  @Test
  void log_lines_show_a_short_key_hash_and_never_the_key() {
    for (IntentEvent event : ALL) {
      String line = LoggingListener.describe(event);
      assertThat(line).doesNotContain(KEY).contains(ID.safeKey()).contains("tenant-a");
      LoggingListener.instance().onEvent(event);
    }
  }

  @Test
  void without_a_bridge_the_default_listener_writes_to_java_util_logging_itself() {
    // This JVM has no System.Logger bridge: the JDK's System.Logger would write to JUL anyway.
    assertThat(System.LoggerFinder.getLoggerFinder().getClass().getName())
        .isEqualTo("sun.util.logging.internal.LoggingProviderImpl");
    assertThat(LoggingListener.instance().backend()).isEqualTo("java.util.logging");
  }

  @Test
  void every_event_reaches_the_logger_at_its_level_with_no_key_in_the_line() {
    RecordingLogger logger = new RecordingLogger(System.Logger.Level.ALL);
    LoggingListener listener = LoggingListener.to(logger);

    ALL.forEach(listener::onEvent);

    assertThat(logger.lines).hasSize(ALL.size());
    assertThat(logger.lines).allSatisfy(l -> assertThat(l).doesNotContain(KEY));
    assertThat(logger.levels).containsExactly(
        System.Logger.Level.DEBUG, System.Logger.Level.DEBUG, System.Logger.Level.DEBUG,
        System.Logger.Level.DEBUG, System.Logger.Level.DEBUG, System.Logger.Level.WARNING,
        System.Logger.Level.DEBUG, System.Logger.Level.INFO, System.Logger.Level.WARNING,
        System.Logger.Level.WARNING, System.Logger.Level.DEBUG, System.Logger.Level.WARNING,
        System.Logger.Level.WARNING, System.Logger.Level.DEBUG);
  }

  @Test
  void lines_below_the_enabled_level_are_not_even_built() {
    RecordingLogger logger = new RecordingLogger(System.Logger.Level.WARNING);
    LoggingListener listener = LoggingListener.to(logger);

    ALL.forEach(listener::onEvent);

    assertThat(logger.levels).containsOnly(System.Logger.Level.WARNING).hasSize(5);
    assertThat(logger.asked).contains(System.Logger.Level.DEBUG, System.Logger.Level.INFO);
  }

  @Test
  void without_a_bridge_the_jdk_hands_the_lines_to_java_util_logging() {
    Logger jul = Logger.getLogger("dev.oncely.client");
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        records.add(record);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Level before = jul.getLevel();
    jul.addHandler(capture);
    jul.setLevel(Level.ALL);
    try {
      ALL.forEach(LoggingListener.instance()::onEvent);
    } finally {
      jul.removeHandler(capture);
      jul.setLevel(before);
    }

    assertThat(records).hasSize(ALL.size());
    assertThat(records).allSatisfy(r -> assertThat(r.getMessage()).doesNotContain(KEY));
    assertThat(records).filteredOn(r -> r.getLevel() == Level.WARNING).hasSize(5);
    assertThat(records).filteredOn(r -> r.getLevel() == Level.FINE).hasSize(8);
    assertThat(records).allSatisfy(r -> {
      assertThat(r.getLoggerName()).isEqualTo("dev.oncely.client");
      assertThat(r.getSourceClassName()).isEqualTo(LoggingListener.class.getName());
      assertThat(r.getSourceMethodName()).isEqualTo("onEvent");
    });
  }

  /** A System.Logger that keeps what it was given. */
  private static final class RecordingLogger implements System.Logger {
    final System.Logger.Level enabled;
    final List<String> lines = new ArrayList<>();
    final List<System.Logger.Level> levels = new ArrayList<>();
    final List<System.Logger.Level> asked = new ArrayList<>();

    RecordingLogger(System.Logger.Level enabled) {
      this.enabled = enabled;
    }

    @Override
    public String getName() {
      return "dev.oncely.client";
    }

    @Override
    public boolean isLoggable(System.Logger.Level level) {
      asked.add(level);
      return level.getSeverity() >= enabled.getSeverity();
    }

    @Override
    public void log(System.Logger.Level level, ResourceBundle bundle, String msg,
        Throwable thrown) {
      levels.add(level);
      lines.add(msg);
    }

    @Override
    public void log(System.Logger.Level level, ResourceBundle bundle, String format,
        Object... params) {
      levels.add(level);
      lines.add(format);
    }

    @Override
    public void log(System.Logger.Level level, Supplier<String> supplier) {
      levels.add(level);
      lines.add(supplier.get());
    }
  }

  @Test
  void event_counter_counts_by_kind() {
    EventCounter counter = new EventCounter();
    counter.onEvent(new IntentEvent.AttemptStarted(ID, 1, "POST", "api.test", false));
    counter.onEvent(new IntentEvent.AttemptStarted(ID, 2, "POST", "api.test", false));
    counter.onEvent(new IntentEvent.InProgress(ID, 409));

    assertThat(counter.attempts()).isEqualTo(2);
    assertThat(counter.inProgress()).isEqualTo(1);
    assertThat(counter.accepted()).isZero();
    assertThat(counter.toString()).contains("attempts=2");
  }
}
