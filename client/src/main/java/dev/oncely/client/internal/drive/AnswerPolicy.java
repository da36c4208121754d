package dev.oncely.client.internal.drive;

import dev.oncely.client.internal.Origins;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentState;
import dev.oncely.client.PendingReason;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.StatusInterpreter;
import dev.oncely.client.dialect.Verdict;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.internal.pacing.BudgetRules.Resend;
import okhttp3.HttpUrl;

/**
 * The one place that decides what an answer means for an intent, for the intent API and the
 * interceptor alike. An answer is judged by what it proves: whether it answers the submit or a
 * poll, and whether an earlier attempt of this intent may already have reached the server
 * ({@code deliveredBefore}). Every reason text an answer gives an outcome is written here; the
 * texts of stops that follow no answer (deadline, attempts, budget, close, offline, the key
 * retention, a store or reconciler failure) are written in {@link DriveLoop}, and a failed create
 * or read in {@code IdempotentClient} and {@link IntentDriver}. Each names what happened (a
 * status, the kind of answer, same origin or not), never a value the server sent (a {@code
 * Location} or status URL, another header's value, body text): reasons are logged, carried by
 * events and printed by the CLI without {@code --reveal}, while the stored response keeps those
 * values. The rules, in the order they apply (docs/client.md has them as a table):
 *
 * <ol>
 *   <li>No answer: send the same exchange again (costs budget).
 *   <li>Redirects the HTTP client followed by itself: judged by the first redirect hop (307/308
 *       within the origin resent the same bytes and key, so the final answer is the submit's); a
 *       hop to another origin or a POST turned into a GET needs reconciliation.
 *   <li>Poll answers: 2xx done (through the dialect's {@link StatusInterpreter}), 202 keep
 *       polling, 404/410 resend the submit with the same key while the key retention allows,
 *       anything else (3xx included: not followed) transient. Never a refusal or a key conflict.
 *   <li>3xx to a submit, not followed: 307/308 within the origin resend the same key and bytes
 *       there; any other redirect proves nothing final (a wrong URL, a POST-redirect-GET of a
 *       processed request, an auth proxy's login page): reconciliation, never {@code Completed}
 *       or {@code Rejected}.
 *   <li>A refusal of the credentials ({@code 401}, {@code 407}) to a submit after the wire got
 *       fresh credentials ({@link Answer.Renewal#RENEWED}): resend the same key and bytes with
 *       them, a bounded number of times per drive ({@link #MAX_RENEWALS}), free of retry budget;
 *       refused on a first delivery, the attempt had no effect and the resend is still a first
 *       delivery. Renewal failed: resend after a wait. Nothing new: the rules below.
 *   <li>The dialect's verdict, with the engine's limits on it: no 5xx is a final refusal; a
 *       mismatch is a key conflict only on the first delivery (afterwards the server contradicts
 *       itself about our byte-identical retry); a 4xx after a maybe-delivered attempt is final only
 *       when the server marks it as a replay of its stored answer or the dialect trusts that status
 *       ({@link Dialect#trustsRefusalAfterDelivery}, none by default), else the same key is resent
 *       a bounded number of times, then pending.
 *   <li>202 without a status URL: resent a bounded number of times
 *       ({@link Dialect#maxBlindResends()}), then pending.
 * </ol>
 *
 * <p>One instance serves one drive or one intercepted call (it counts blind resends, redirects
 * and ambiguous answers); not thread-safe.
 */
public final class AnswerPolicy {
  /** 307/308 redirects within the origin one drive follows. */
  public static final int MAX_REDIRECTS = 5;
  /** Resends after an auth or routing answer that followed a maybe-delivered attempt. */
  public static final int MAX_AMBIGUOUS_RESENDS = 2;
  /** Resends with renewed credentials after a {@code 401} or {@code 407}, per drive. */
  public static final int MAX_RENEWALS = 2;

  private final Dialect dialect;
  private final IntentId id;
  private final HttpUrl intentUrl;
  private int blindResends;
  private int redirects;
  private int ambiguous;
  private int renewals;

  /** A policy for one drive of intent {@code id} submitted to {@code intentUrl}. */
  public AnswerPolicy(Dialect dialect, IntentId id, HttpUrl intentUrl) {
    this.dialect = dialect;
    this.id = id;
    this.intentUrl = intentUrl;
  }

  /**
   * Decides what follows {@code answer} to {@code exchange}.
   *
   * @param deliveredBefore whether an attempt of this intent before this one may have reached the
   *     server (durable and sticky across drives)
   * @param withinRetention whether the server is still expected to remember the key
   */
  public Step decide(Exchange exchange, boolean deliveredBefore, Answer answer,
      boolean withinRetention) {
    if (answer.failure() != null) {
      return again(exchange, "no answer (" + answer.failure().getClass().getSimpleName() + ")",
          Resend.AFTER_FAILURE, null, null);
    }
    // A follow-up the HTTP client sent on its own (a 503 resend, an authenticator's retry) makes
    // this answer one to a repeated delivery.
    deliveredBefore |= answer.resentByClient();
    if (answer.followedRedirects()) {
      return followed(exchange, deliveredBefore, answer, withinRetention);
    }
    if (exchange.isPoll()) {
      return poll(exchange, answer, withinRetention);
    }
    int status = answer.response().status();
    if (status >= 300 && status < 400) {
      return redirect(answer);
    }
    if (Answer.refusesCredentials(status)) {
      Step renewed = renewed(exchange, deliveredBefore, answer);
      if (renewed != null) {
        return renewed;
      }
    }
    return submit(exchange, deliveredBefore, answer);
  }

  /**
   * What follows a refusal of the credentials to a submit when the app's credential source gave
   * something new or failed; null when it gave nothing new (or the renewals ran out), so the
   * refusal is judged like any other 4xx. Nothing before a refused first delivery reached the
   * server, and the refusal proves the attempt had no effect: the resend stays a first delivery.
   */
  private Step renewed(Exchange exchange, boolean deliveredBefore, Answer answer) {
    int status = answer.response().status();
    boolean unprocessed = !deliveredBefore;
    switch (answer.renewal()) {
      case RENEWED:
        if (++renewals > MAX_RENEWALS) {
          return null;
        }
        return new Step.Again(exchange, "answered " + status + "; resending the same key and"
            + " bytes with renewed credentials", Resend.RENEWED_CREDENTIALS, unprocessed, null,
            null);
      case FAILED:
        return new Step.Again(exchange, "answered " + status + " and renewing the credentials"
            + " failed; resending the same key and bytes later", Resend.AFTER_FAILURE, unprocessed,
            null, null);
      default:
        return null;
    }
  }

  private Step submit(Exchange exchange, boolean deliveredBefore, Answer answer) {
    StoredResponse response = answer.response();
    int status = response.status();
    boolean replayed = dialect.isReplay(response);
    Verdict verdict = classify(response);
    if (status >= 500 && verdict == Verdict.REJECTED) {
      verdict = replayed ? Verdict.RECONCILE : Verdict.RETRY;
    }
    switch (verdict) {
      case COMPLETED:
        return new Step.Finish(IntentState.COMPLETED, response, replayed, null,
            new IntentEvent.Completed(id, status, replayed));
      case ACCEPTED:
        return accepted(exchange, answer);
      case IN_PROGRESS:
        return again(exchange, "a request with this key is in progress (" + status + ")",
            Resend.UNDER_WAY, PendingReason.KEY_IN_USE, new IntentEvent.InProgress(id, status));
      case PAYLOAD_MISMATCH:
        if (deliveredBefore) {
          String reason = "the server answered " + status + " (key used with another payload) to a"
              + " byte-identical retry: it contradicts itself (lost or garbled its record), and"
              + " the first attempt may have had its effect";
          return new Step.Finish(IntentState.NEEDS_RECONCILIATION, response, replayed, reason,
              new IntentEvent.NeedsReconciliation(id, reason));
        }
        return new Step.Finish(IntentState.KEY_CONFLICT, response, replayed,
            "the server saw this key with another payload (" + status + ")",
            new IntentEvent.PayloadMismatch(id, status));
      case RECONCILE: {
        String reason = "server error " + status + (replayed
            ? " replayed from the server's idempotency store" : " marked as not retryable")
            + ": resending cannot help";
        return new Step.Finish(IntentState.NEEDS_RECONCILIATION, response, replayed, reason,
            new IntentEvent.NeedsReconciliation(id, reason));
      }
      case REJECTED:
        if (!deliveredBefore || replayed || dialect.trustsRefusalAfterDelivery(status)) {
          return new Step.Finish(IntentState.REJECTED, response, replayed,
              "rejected with " + status, new IntentEvent.Rejected(id, status));
        }
        return ambiguous(exchange, status);
      case RETRY:
      default:
        return again(exchange, "transient answer " + status, Resend.AFTER_FAILURE, null, null);
    }
  }

  private Verdict classify(StoredResponse response) {
    try {
      Verdict verdict = dialect.classify(response);
      return verdict != null ? verdict : Verdict.RETRY;
    } catch (RuntimeException e) {
      return Verdict.RETRY;
    }
  }

  private Step ambiguous(Exchange exchange, int status) {
    if (++ambiguous <= MAX_AMBIGUOUS_RESENDS) {
      return again(exchange, "answered " + status + " after an earlier attempt may have been"
          + " delivered; resending with the same key", Resend.AFTER_FAILURE, null, null);
    }
    return new Step.Park(PendingReason.AMBIGUOUS_ANSWER, "answered " + status + " "
        + ambiguous + " times after an earlier attempt may have been delivered: a refusal the"
        + " server does not mark as a replay does not prove the first attempt had no effect");
  }

  private Step accepted(Exchange exchange, Answer answer) {
    HttpUrl statusUrl = statusUrl(answer);
    if (statusUrl != null) {
      return again(Exchange.poll(statusUrl), "202 accepted; polling the status URL",
          Resend.UNDER_WAY, PendingReason.STILL_PROCESSING, new IntentEvent.Accepted(id, true));
    }
    if (++blindResends > dialect.maxBlindResends()) {
      return new Step.Park(PendingReason.NO_STATUS_URL, "202 accepted " + blindResends
          + " times without a status URL; the server may replay this answer forever");
    }
    return again(exchange, "202 accepted without a status URL; resending with the same key",
        Resend.UNDER_WAY, PendingReason.STILL_PROCESSING, new IntentEvent.Accepted(id, false));
  }

  private HttpUrl statusUrl(Answer answer) {
    for (String name : new String[] {"Location", "Content-Location"}) {
      HttpUrl found = resolve(answer.url(), answer.response().header(name));
      if (found != null) {
        return found;
      }
    }
    String fromBody;
    try {
      fromBody = dialect.statusUrlResolver().statusUrl(answer.response());
    } catch (RuntimeException e) {
      fromBody = null;
    }
    return resolve(answer.url(), fromBody);
  }

  private static HttpUrl resolve(HttpUrl base, String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    return base.resolve(value.trim());
  }

  private Step poll(Exchange exchange, Answer answer, boolean withinRetention) {
    StoredResponse response = answer.response();
    int status = response.status();
    if (status >= 300 && status < 400) {
      // Not followed: an auth proxy redirects to a login page whose 200 would read as "done".
      return again(exchange, "status URL redirected (" + status + "); polling it again",
          Resend.AFTER_FAILURE, PendingReason.STILL_PROCESSING, null);
    }
    if (status == 202) {
      HttpUrl moved = resolve(answer.url(), response.header("Location"));
      return again(moved != null ? Exchange.poll(moved) : exchange,
          "status URL says still processing (202)", Resend.UNDER_WAY,
          PendingReason.STILL_PROCESSING, new IntentEvent.Accepted(id, true));
    }
    if (status >= 200 && status < 300) {
      if (interpret(response) == StatusInterpreter.PollState.DONE) {
        boolean replayed = dialect.isReplay(response);
        return new Step.Finish(IntentState.COMPLETED, response, replayed, null,
            new IntentEvent.Completed(id, status, replayed));
      }
      return again(exchange, "status document says processing (" + status + ")",
          Resend.UNDER_WAY, PendingReason.STILL_PROCESSING, null);
    }
    if (status == 404 || status == 410) {
      if (withinRetention) {
        return again(Exchange.submit(intentUrl), "status URL answered " + status
            + "; resending with the same key", Resend.STATUS_GONE, null, null);
      }
      String reason = "the status URL answered " + status + " and the key may be past the server's"
          + " retention: resending could create a second effect";
      return new Step.Finish(IntentState.NEEDS_RECONCILIATION, response, false, reason,
          new IntentEvent.NeedsReconciliation(id, reason));
    }
    return again(exchange, "status URL answered " + status + "; polling again",
        Resend.AFTER_FAILURE, PendingReason.STILL_PROCESSING, null);
  }

  private StatusInterpreter.PollState interpret(StoredResponse response) {
    try {
      StatusInterpreter.PollState state = dialect.statusInterpreter().interpret(response);
      return state != null ? state : StatusInterpreter.PollState.PROCESSING;
    } catch (RuntimeException e) {
      return StatusInterpreter.PollState.PROCESSING;
    }
  }

  private Step redirect(Answer answer) {
    StoredResponse response = answer.response();
    int status = response.status();
    HttpUrl target = resolve(answer.url(), response.header("Location"));
    if ((status == 307 || status == 308) && target != null && Origins.same(answer.url(), target)
        && ++redirects <= MAX_REDIRECTS) {
      return again(Exchange.submit(target), status + " redirect within the intent's origin;"
          + " resending the same key and bytes there", Resend.REDIRECTED, null, null);
    }
    // Where it points is named only as "same origin or not": a Location can hold an order id or
    // a signed token, and the stored response keeps it for whoever may read it.
    boolean sameOrigin = target != null && Origins.same(answer.url(), target);
    String where = target == null ? "without a usable Location"
        : !sameOrigin ? "to another origin"
        : status == 307 || status == 308 ? "within the intent's origin, more than "
            + MAX_REDIRECTS + " times"
        : "within the intent's origin";
    return redirected(response, "the server redirected the submit (" + status + ") " + where
        + "; a redirect of an unsafe request is not followed");
  }

  private Step followed(Exchange exchange, boolean deliveredBefore, Answer answer,
      boolean withinRetention) {
    int first = answer.firstStatus();
    if (exchange.isPoll()) {
      return poll(exchange, answer, withinRetention);
    }
    if (answer.crossOriginHop()) {
      return redirected(answer.response(), "the HTTP client followed a " + first + " redirect of"
          + " the submit to another origin or another method, where it may have been processed;"
          + " build the client with followRedirects(false)");
    }
    if (first == 307 || first == 308) {
      // The client sent the intent a second time, to the redirect target: a repeat delivery.
      return submit(Exchange.submit(answer.url()), true, answer);
    }
    return redirected(answer.response(), "the server redirected the submit (" + first + ") and"
        + " the HTTP client turned it into a GET; that answer says nothing about the intent");
  }

  /**
   * A redirect of the submit proves nothing final: the URL may be wrong (nothing processed), the
   * server may have processed it and point at the result (POST-redirect-GET), or an auth proxy
   * may send the client to a login page. Only reconciliation can tell.
   */
  private Step redirected(StoredResponse response, String what) {
    String reason = what + ": the intent's URL may be wrong, or the server processed it and points"
        + " elsewhere; a redirect proves nothing final";
    return new Step.Finish(IntentState.NEEDS_RECONCILIATION, response, false, reason,
        new IntentEvent.NeedsReconciliation(id, reason));
  }

  private static Step again(Exchange next, String cause, Resend why,
      PendingReason processing, IntentEvent event) {
    return new Step.Again(next, cause, why, false, processing, event);
  }
}
