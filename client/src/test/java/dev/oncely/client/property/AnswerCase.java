package dev.oncely.client.property;

import dev.oncely.testing.KeyQuoting;
import dev.oncely.testing.PollStyle;
import dev.oncely.testing.ServerErrors;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One generated case of the model-based property tests: how the simulated server behaves, the
 * fault (or none) of each of its first requests, how many attempts the first client may make, and
 * whether the client crashes and resumes.
 *
 * @param server the server's profile
 * @param steps the fault of request 1, 2, ... (then none)
 * @param firstRunAttempts max attempts of the first client (the one that may crash)
 * @param crash whether and how the first client is closed and a new one resumes on the same store
 * @param keyQuoting how the server reads the key header's value
 * @param otherDialectOnResume whether the resuming client has the other dialect (IETF sends the
 *     key quoted, Stripe plain): the record's pinned wire form must win
 * @param twist what the app around the engine does to the intent (each entry point's test applies
 *     the twists that exist for it and reads the others as none)
 */
record AnswerCase(Profile server, List<Step> steps, int firstRunAttempts, Crash crash,
    KeyQuoting keyQuoting, boolean otherDialectOnResume, Twist twist) {

  /** The app's hostile ground: what happens to the intent outside the engine. */
  enum Twist {
    /** Nothing unusual. */
    NONE,
    /**
     * Intent API: a second submit of the same business id, under another key, from inside a slow
     * listener right after the first's record was created and before its drive started.
     */
    CONCURRENT_SUBMIT,
    /** Intent API: the header provider throws on its first call. */
    PROVIDER_THROWS,
    /** Intent API: the header provider's first value is one OkHttp refuses (a line break). */
    PROVIDER_REFUSED_VALUE,
    /** Interceptor: an app interceptor outside ours runs the chain once more after an IOException. */
    OUTER_RETRY,
    /** Interceptor: the call is canceled right after its first request went out. */
    CANCEL_AFTER_WRITE,
    /**
     * Interceptor, untagged call: another account first sends the same app-set key; the intent's
     * call must reach the server, never get the other account's stored response.
     */
    SECOND_SCOPE,
    /**
     * Both, with a crash: the other entry point resumes the record (the intent API's record with
     * volatile fields in its body).
     */
    OTHER_ENTRY_POINT_RESUMES
  }

  /** How the client's process ends before the intent is finished. */
  enum Crash {
    /** No crash: one client drives the intent. */
    NONE,
    /** The first client gets an outcome, is closed; a new one on the same store resumes. */
    RESUME_AFTER_OUTCOME,
    /** The first client is closed right after {@code submit()}; a new one resumes. */
    CLOSE_RIGHT_AFTER_SUBMIT,
    /**
     * The first client gets an outcome and is closed; a new one resumes 25 hours later, past the
     * server's 24 h key retention (the clients are told the 24 h).
     */
    RESUME_NEXT_DAY,
    /**
     * The first client is closed right after {@code submit()}; a second resumes while offline and
     * is closed; a third resumes online 25 hours later, past the server's key retention.
     */
    OFFLINE_RESUME_THEN_NEXT_DAY,
    /**
     * The first client (or interceptor) waits on the system timer, not a test sleeper, and is
     * closed as soon as the server has seen its first request: on the wire, in a real wait, or
     * done; a new one on the same store resumes.
     */
    CLOSE_WHILE_WAITING
  }

  /** Mismatch answers real servers give. */
  enum Mismatch {
    IETF_422, CONFLICT_409, EXPECTATION_417, STRIPE_400
  }

  /** The server's configuration. */
  record Profile(Mismatch mismatch, ServerErrors serverErrors, boolean async, PollStyle pollStyle,
      boolean statusOnOtherOrigin, boolean locationOnReplay, boolean replayAcceptedForever,
      int completeAfterPolls) {
    @Override
    public String toString() {
      return "server(" + mismatch + ", 5xx " + serverErrors
          + (async ? ", async " + pollStyle + " after " + completeAfterPolls + " polls, status on "
              + (statusOnOtherOrigin ? "OTHER origin" : "same origin")
              + (locationOnReplay ? "" : ", no Location on replay")
              + (replayAcceptedForever ? ", replays 202 forever" : "") : ", sync")
          + ")";
    }
  }

  /**
   * The fault of one request, described without ports (they are known only at run time).
   *
   * @param kind the fault kind, or null for none
   * @param status its status, or 0
   * @param foreign for a redirect: whether it points at the other origin
   */
  record Step(dev.oncely.testing.Fault.Kind kind, int status, boolean foreign) {
    static final Step NONE = new Step(null, 0, false);

    @Override
    public String toString() {
      if (kind == null) {
        return "-";
      }
      String name = kind.name().toLowerCase(java.util.Locale.ROOT);
      if (kind == dev.oncely.testing.Fault.Kind.REDIRECT) {
        return name + "(" + status + (foreign ? " -> other origin" : " -> same origin") + ")";
      }
      return status == 0 ? name : name + "(" + status + ")";
    }
  }

  @Override
  public String toString() {
    return server + " requests[" + steps.stream().map(Step::toString)
        .collect(Collectors.joining(", ")) + "] firstRunAttempts=" + firstRunAttempts
        + " crash=" + crash + " serverKeys=" + keyQuoting
        + (otherDialectOnResume ? " resumeWithOtherDialect" : "")
        + (twist == Twist.NONE ? "" : " twist=" + twist);
  }
}
