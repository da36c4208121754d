package dev.oncely.android.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.spi.IntentStoreContract;
import java.time.Instant;
import java.util.List;
import org.junit.Test;

/** When the background job is due, from the unfinished records alone (plain JUnit). */
public class ResumeSchedulerTest {
  private static final Instant T = Instant.parse("2026-12-01T08:00:00Z");

  private static IntentRecord pendingUntil(String key, Instant next) {
    return IntentStoreContract.newRecord("s", "op", key).toBuilder()
        .state(IntentState.PENDING).updatedAt(T).nextAttemptAt(next).build();
  }

  private static IntentRecord inFlightSince(String key, Instant updated) {
    return IntentStoreContract.newRecord("s", "op", key).toBuilder()
        .state(IntentState.IN_FLIGHT).createdAt(updated).updatedAt(updated).build();
  }

  @Test
  public void nothing_unfinished_means_no_due_time() {
    assertThat(ResumeScheduler.earliestDue(List.of())).isNull();
  }

  @Test
  public void the_earliest_next_attempt_of_any_unfinished_intent_is_the_due_time() {
    assertThat(ResumeScheduler.earliestDue(List.of(
        pendingUntil("a", T.plusSeconds(300)),
        pendingUntil("b", T.plusSeconds(30)),
        pendingUntil("c", T.plusSeconds(3600)))))
        .isEqualTo(T.plusSeconds(30));
  }

  @Test
  public void an_intent_without_a_next_attempt_is_due_a_grace_period_after_its_last_update() {
    assertThat(ResumeScheduler.earliestDue(List.of(
        inFlightSince("a", T),
        pendingUntil("b", T.plusSeconds(3600)))))
        .isEqualTo(T.plus(ResumeScheduler.IN_FLIGHT_GRACE));
  }
}
