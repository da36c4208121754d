package dev.oncely.client.property;

import dev.oncely.client.HeaderProvider;
import dev.oncely.client.IntentId;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;
import okhttp3.Authenticator;

/**
 * The app's token store and how it refreshes, as the case draws them: an OkHttp {@link
 * Authenticator} for the interceptor, a {@link HeaderProvider} for the intent API. The server
 * refuses {@link #EXPIRED} (and a request without a token) with {@code 401}. Both refresh as the
 * usual authenticator does: once, only when the refused request carried the current token (another
 * call may have refreshed it already), resending with the current token otherwise, and giving up on
 * a token they refreshed. One store per case, shared by the first client and those that resume.
 */
final class AppCredentials {
  /** The token the server refuses. */
  static final String EXPIRED = "Bearer expired";

  /** What the app starts with. */
  enum Start {
    /** A valid token and no refresh: the app has no authenticator. */
    VALID_NO_AUTHENTICATOR,
    /** A valid token and a refresh that works once (on a 401 some fault gives). */
    VALID_WITH_AUTHENTICATOR,
    /** An expired token and a refresh that works once: every 401 of the kit is answered. */
    EXPIRED_WITH_AUTHENTICATOR,
    /** An expired token and no refresh: the intent is refused, with no effect. */
    EXPIRED_NO_AUTHENTICATOR
  }

  private final Start start;
  /** The token the provider last gave each intent: the one a refusal of its attempt refused. */
  private final Map<IntentId, String> given = new ConcurrentHashMap<>();
  private volatile String current;
  private boolean refreshed;

  AppCredentials(Start start) {
    this.start = start;
    this.current = expired() ? EXPIRED : "Bearer app-token";
  }

  /** The starts both property tests draw. */
  static Arbitrary<Start> starts() {
    return Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.just(Start.VALID_NO_AUTHENTICATOR)),
        Tuple.of(2, Arbitraries.just(Start.VALID_WITH_AUTHENTICATOR)),
        Tuple.of(3, Arbitraries.just(Start.EXPIRED_WITH_AUTHENTICATOR)),
        Tuple.of(1, Arbitraries.just(Start.EXPIRED_NO_AUTHENTICATOR)));
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
      String token = tokenAfterRefusing(response.request().header(SimulatedWorld.CREDENTIAL));
      return token == null ? null
          : response.request().newBuilder().header(SimulatedWorld.CREDENTIAL, token).build();
    };
  }

  /**
   * The intent API's header provider: the current token, refreshed as the authenticator does when
   * {@link HeaderProvider.Target#refresh()} says the token it last gave the intent was refused.
   * Giving up is giving the same token again. A start without a refresh ignores the flag.
   */
  HeaderProvider headerProvider() {
    return new HeaderProvider() {
      @Override
      public Map<String, String> headersFor(IntentId id, String url) {
        return headersFor(id, new Target(url, false, false));
      }

      @Override
      public Map<String, String> headersFor(IntentId id, Target target) {
        String token = current;
        if (target.refresh() && refreshAnswersTheServer()) {
          String renewed = tokenAfterRefusing(given.get(id));
          token = renewed == null ? given.get(id) : renewed;
        }
        given.put(id, token);
        return Map.of(SimulatedWorld.CREDENTIAL, token);
      }
    };
  }

  /**
   * The token to resend with after {@code refused} was refused: refreshed once if it is the
   * current one, else the current one; null (give up) when the current one is already refreshed.
   */
  private synchronized String tokenAfterRefusing(String refused) {
    if (current.equals(refused)) {
      if (refreshed) {
        return null;
      }
      refreshed = true;
      current = "Bearer refreshed";
    }
    return current;
  }

  @Override
  public String toString() {
    return start.toString();
  }
}
