package dev.oncely.server.internal;

import java.util.Set;

/**
 * Which of a handler's answers are stored and replayed, stated once. Stored: every 2xx and 3xx,
 * and every 4xx but the ones that say "not now" or "not you" rather than "no": 401, 403 and 407
 * (credentials the client may renew), 408, 425 and 429 (try later). Not stored: those, every 5xx
 * and a handler that threw. An answer that is not stored releases the reservation when no effect
 * was committed, so the client's retry with the same key runs the handler again; a stored 500
 * (as Stripe keeps) would instead turn a passing fault into a permanent one for that key.
 */
public final class KeptAnswers {
  private static final Set<Integer> PASSING_4XX = Set.of(401, 403, 407, 408, 425, 429);

  private KeptAnswers() {}

  /** Whether an answer with {@code status} is stored and replayed. */
  public static boolean isKept(int status) {
    if (status < 200 || status >= 500) {
      return false;
    }
    return !PASSING_4XX.contains(status);
  }
}
