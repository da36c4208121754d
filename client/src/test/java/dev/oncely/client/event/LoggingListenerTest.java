package dev.oncely.client.event;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.PendingReason;
import dev.oncely.client.spi.IntentId;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoggingListenerTest {
  private static final String KEY = "sEcReTkEy0123456789abcdefghijklm";
  private static final IntentId ID = IntentId.of("tenant-a", "create-payment", KEY);

  @Test
  void log_lines_show_a_short_key_hash_and_never_the_key() {
    List<IntentEvent> all = List.of(
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
        new IntentEvent.MalformedRetryAfter(ID, "soon"),
        new IntentEvent.BudgetExhausted(ID, "api.test"));
    for (IntentEvent event : all) {
      String line = LoggingListener.describe(event);
      assertThat(line).doesNotContain(KEY).contains(ID.safeKey()).contains("tenant-a");
      LoggingListener.instance().onEvent(event);
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
