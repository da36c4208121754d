package dev.oncely.client.internal.http;

import dev.oncely.client.internal.drive.Answer;
import java.util.List;
import okhttp3.Authenticator;
import okhttp3.Headers;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.Route;

/**
 * Asks the app client's {@code authenticator()} (for a {@code 401}) or {@code
 * proxyAuthenticator()} (for a {@code 407}) for fresh credentials, as OkHttp would, once per
 * refusal: the interceptor's network half hid the refusal from OkHttp, which would have asked and
 * then dropped the follow-up of a one-shot body. Only the follow-up's headers are taken; its URL,
 * method and body never replace the intent's. Without the network half OkHttp has asked already,
 * and an authenticator is asked a second time for the same refusal (one that compares the refused
 * request's token with its current one, the usual guard against concurrent refreshes, refreshes
 * once).
 */
final class AuthenticatorRenewal {
  /** What asking gave, and the headers to send from now on (null unless renewed). */
  record Result(Answer.Renewal renewal, Headers headers) {}

  private AuthenticatorRenewal() {}

  /**
   * Asks {@code client}'s authenticator after {@code refused} answered a request that carried
   * {@code sent} (the app's headers, without key headers).
   *
   * @param keyHeaders header names that may carry a key, left out of what is compared and kept
   */
  static Result ask(OkHttpClient client, Route route, Response refused, Headers sent,
      List<String> keyHeaders) {
    if (client == null) {
      return new Result(Answer.Renewal.UNCHANGED, null);
    }
    Authenticator source = refused.code() == 407 ? client.proxyAuthenticator()
        : client.authenticator();
    if (source == Authenticator.NONE) {
      return new Result(Answer.Renewal.UNCHANGED, null);
    }
    Request followUp;
    try {
      followUp = source.authenticate(route, refused);
    } catch (Exception e) {
      return new Result(Answer.Renewal.FAILED, null);
    }
    if (followUp == null) {
      return new Result(Answer.Renewal.UNCHANGED, null);
    }
    Headers fresh = withoutKeys(followUp.headers(), keyHeaders);
    // Compared by name and values, not order: setting the same token again moves its header.
    if (fresh.toMultimap().equals(withoutKeys(sent, keyHeaders).toMultimap())) {
      return new Result(Answer.Renewal.UNCHANGED, null);
    }
    return new Result(Answer.Renewal.RENEWED, fresh);
  }

  private static Headers withoutKeys(Headers headers, List<String> keyHeaders) {
    Headers.Builder out = headers.newBuilder();
    keyHeaders.forEach(out::removeAll);
    return out.build();
  }
}
