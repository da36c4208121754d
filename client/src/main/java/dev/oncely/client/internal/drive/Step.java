package dev.oncely.client.internal.drive;

import dev.oncely.client.IntentState;
import dev.oncely.client.PendingReason;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.internal.pacing.BudgetRules;

/** What {@link AnswerPolicy} decided after one answer: finish, send again, or stop pending. */
public sealed interface Step {
  /**
   * The intent has an outcome: record {@code state} with {@code response} and {@code reason}
   * (null for completed), then report {@code event}.
   */
  record Finish(IntentState state, StoredResponse response, boolean replayed, String reason,
      IntentEvent event) implements Step {}

  /**
   * Send {@code next} after a wait. {@code cause} says why in safe words; {@code resend} why in
   * the retry budget's terms ({@link BudgetRules} decides what that costs);
   * {@code provedUnprocessed} whether the answer proves that its attempt had no effect (a
   * refusal of the credentials to an attempt that nothing before may have delivered), so the
   * resend is still a first delivery; {@code processing} the reason a drive that runs out of
   * attempts or time now stops with because the server said the operation is under way ({@link
   * PendingReason#STILL_PROCESSING} after a {@code 202} or a poll of its status URL, {@link
   * PendingReason#KEY_IN_USE} after an in-progress answer), null when it did not say so;
   * {@code event} is reported first (may be null).
   */
  record Again(Exchange next, String cause, BudgetRules.Resend resend, boolean provedUnprocessed,
      PendingReason processing, IntentEvent event) implements Step {}

  /** Stop this drive {@code Pending}: the outcome is unknown and resending now cannot help. */
  record Park(PendingReason reason, String detail) implements Step {}
}
