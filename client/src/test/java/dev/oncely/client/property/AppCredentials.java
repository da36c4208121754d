package dev.oncely.client.property;

import okhttp3.Authenticator;

/**
 * The app's token store and its OkHttp {@link Authenticator}, as the case draws them. The server
 * refuses {@link #EXPIRED} (and a request without a token) with {@code 401}. The authenticator is
 * the usual one: it refreshes once, only when the refused request carried the current token
 * (another call may have refreshed it already), resends with the current token otherwise, and
 * gives up on a token it refreshed. One store per case, shared by the first client and those that
 * resume.
 */
final class AppCredentials {
  /** The token the server refuses. */
  static final String EXPIRED = "Bearer expired";

  /** What the app starts with. */
  enum Start {
    /** A valid token and no authenticator (the app before issue 28). */
    VALID_NO_AUTHENTICATOR,
    /** A valid token and an authenticator that refreshes once (on a 401 some fault gives). */
    VALID_WITH_AUTHENTICATOR,
    /** An expired token and an authenticator that refreshes once: every 401 of the kit is answered. */
    EXPIRED_WITH_AUTHENTICATOR,
    /** An expired token and no authenticator: the intent is refused, with no effect. */
    EXPIRED_NO_AUTHENTICATOR
  }

  private final Start start;
  private volatile String current;
  private boolean refreshed;

  AppCredentials(Start start) {
    this.start = start;
    this.current = expired() ? EXPIRED : "Bearer app-token";
  }

  /** Whether the server accepts {@code token} (null when the request carried none). */
  static boolean accepted(String token) {
    return token != null && !token.equals(EXPIRED);
  }

  boolean expired() {
    return start == Start.EXPIRED_WITH_AUTHENTICATOR || start == Start.EXPIRED_NO_AUTHENTICATOR;
  }

  /** Whether every 401 the kit gives for a stale or missing token can be answered. */
  boolean refreshAnswersTheServer() {
    return start == Start.EXPIRED_WITH_AUTHENTICATOR || start == Start.VALID_WITH_AUTHENTICATOR;
  }

  String current() {
    return current;
  }

  /** The client's authenticator, or {@link Authenticator#NONE}. */
  Authenticator authenticator() {
    if (!refreshAnswersTheServer()) {
      return Authenticator.NONE;
    }
    return (route, response) -> {
      String sent = response.request().header(SimulatedWorld.CREDENTIAL);
      synchronized (this) {
        if (current.equals(sent)) {
          if (refreshed) {
            return null;
          }
          refreshed = true;
          current = "Bearer refreshed";
        }
      }
      return response.request().newBuilder().header(SimulatedWorld.CREDENTIAL, current).build();
    };
  }

  @Override
  public String toString() {
    return start.toString();
  }
}
