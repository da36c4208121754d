package dev.oncely.client.internal.http;

import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentPendingException;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.NeedsReconciliationException;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryBudgetExhaustedException;
import dev.oncely.client.StoreException;
import dev.oncely.client.internal.drive.Answer;
import dev.oncely.client.internal.drive.DriveEnd;
import java.io.IOException;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * What an intercepted call returns for how its drive ended: the live or the stored response, or
 * the typed {@code IOException} that says what is known. The intent API reads the same ends as
 * outcomes ({@code IntentDriver}); both read a {@code LOST} end by the record another driver left.
 */
final class CallAnswers {
  /** Response header added when the answer comes from the store instead of the network. */
  static final String STORED_RESPONSE_HEADER = "Oncely-Stored-Response";

  private CallAnswers() {}

  /** What the app gets for how the drive ended. */
  static Response render(Interceptor.Chain chain, Request original, IntentId id, DriveEnd end)
      throws IOException {
    IntentRecord record = end.record();
    Response live = end.live();
    switch (end.kind()) {
      case SETTLED:
        if (live == null) {
          return stored(original, record);
        }
        if (record.state() == IntentState.NEEDS_RECONCILIATION && misleading(end.answer())) {
          live.close();
          throw new NeedsReconciliationException(id, record.reason());
        }
        return live;
      case RECONCILE:
        throw new NeedsReconciliationException(id, end.detail() != null ? end.detail()
            : record.reason());
      case LOST:
        // Read as the intent API reads it (IntentDriver.outcomeOf): the record another driver
        // left is the answer, rendered as this entry point renders that outcome.
        if (record != null && record.state().isTerminal() && record.lastResponse() != null) {
          return stored(original, record);
        }
        if (record != null && record.state() == IntentState.NEEDS_RECONCILIATION) {
          throw new NeedsReconciliationException(id, record.reason());
        }
        throw new IntentPendingException(pending(id, end, null));
      case STORE_FAILED:
        throw (RuntimeException) end.cause();
      default:
        if (end.cause() instanceof RetryBudgetExhaustedException refused) {
          // The budget refused a resend the answer asked for: that refusal is the news.
          if (live != null) {
            live.close();
          }
          throw refused;
        }
        if (live != null) {
          if (misleading(end.answer())) {
            live.close();
            throw new IntentPendingException(pending(id, end, null));
          }
          return live;
        }
        if (chain.call().isCanceled()) {
          // The app canceled the call (or its call timeout fired): it gets OkHttp's own
          // exception, as for any canceled call; the record says what is known.
          if (end.cause() instanceof IOException failure) {
            throw failure;
          }
          IOException canceled = new IOException("Canceled");
          if (end.cause() != null) {
            canceled.addSuppressed(end.cause());
          }
          throw canceled;
        }
        // No answer, and the attempts or the deadline ran out: the outcome is unknown, never a
        // bare socket error. The last I/O failure (earlier ones suppressed) is the cause.
        throw new IntentIOException(new IntentPendingException(pending(id, end, end.cause())));
    }
  }

  /** The pending outcome the drive ended with, as the intent API reports it. */
  private static IntentOutcome.Pending pending(IntentId id, DriveEnd end, Throwable cause) {
    IntentRecord record = end.record();
    PendingReason reason = end.reason() != null ? end.reason() : PendingReason.DRIVEN_ELSEWHERE;
    String detail = end.detail() != null ? end.detail() : "the outcome is not known yet";
    return new IntentOutcome.Pending(record != null ? record.id() : id, reason, detail, end.due(),
        record == null ? null : record.lastResponse(), cause);
  }

  /** The stored answer of a finished record, marked as coming from the store. */
  private static Response stored(Request original, IntentRecord record) {
    if (record.lastResponse() == null) {
      // A finished intent is never sent again, even when its record cannot answer for it.
      throw new StoreException("record " + record.id() + " is " + record.state()
          + " but holds no response to answer with; it is not sent again");
    }
    return HttpParts.toResponse(original, record.lastResponse(), STORED_RESPONSE_HEADER);
  }

  /**
   * Whether handing {@code answer} to the app would read as a final refusal or redirect although
   * the decision core did not accept it as one (a 3xx or 4xx): then the app gets a typed
   * exception instead.
   */
  private static boolean misleading(Answer answer) {
    return answer != null && answer.response() != null && (answer.followedRedirects()
        || answer.response().status() >= 300 && answer.response().status() < 500);
  }
}
