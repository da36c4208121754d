package dev.oncely.client.internal;

import dev.oncely.client.StoredResponse;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import okhttp3.HttpUrl;
import okhttp3.Response;

/**
 * What came back from one attempt: a bounded copy of the response, or the failure. When the HTTP
 * client followed redirects on its own (a caller-supplied {@code Call.Factory}, or the app's client
 * under the interceptor), {@code firstStatus} is the status of the earliest redirect hop and
 * {@code crossOriginHop} tells whether any hop left the request's origin.
 *
 * @param response the answer, or null when {@code failure} is set
 * @param url the URL that answered (the last hop's)
 * @param failure the failure, or null
 * @param firstStatus the earliest redirect hop's status when redirects were followed, else 0
 * @param crossOriginHop whether a followed redirect left the origin of the request or changed its
 *     method, so the final answer is not one to the intent's own request
 * @param unsent whether the failure happened before the request was handed to the HTTP client
 * @param resentByClient whether the HTTP client sent follow-up requests of its own, or wrote the
 *     body more than once, so the answer is not to the first delivery
 * @param written whether the body was written at least once in this attempt, so no failure proves
 *     it unsent
 */
public record Answer(StoredResponse response, HttpUrl url, IOException failure, int firstStatus,
    boolean crossOriginHop, boolean unsent, boolean resentByClient, boolean written) {

  /** A failure of an attempt to {@code url}. */
  public static Answer failed(HttpUrl url, IOException failure) {
    return new Answer(null, url, failure, 0, false, false, false, false);
  }

  /** A failure before anything was handed to the HTTP client (for example a header provider's). */
  public static Answer unsent(HttpUrl url, IOException failure) {
    return new Answer(null, url, failure, 0, false, true, false, false);
  }

  /**
   * The answer {@code live}, read into {@code stored}, to a request for {@code requested}. When the
   * HTTP client answered follow-ups itself (its own resend of a 503 or 408, an authenticator's
   * retry, a redirect), the earliest redirect hop is kept as {@code firstStatus}.
   */
  public static Answer of(Response live, StoredResponse stored, HttpUrl requested) {
    int redirect = 0;
    boolean crossOrigin = false;
    boolean resent = false;
    Response first = live;
    for (Response hop = live; hop != null; hop = hop.priorResponse()) {
      crossOrigin |= !Origins.same(requested, hop.request().url());
      if (hop != live) {
        boolean isRedirect = hop.code() >= 300 && hop.code() < 400;
        redirect = isRedirect ? hop.code() : redirect;
        resent |= !isRedirect;
      }
      first = hop;
    }
    // A hop that changed the method (a 301/302/303 turned the submit into a GET) anywhere in the
    // chain makes the final answer one about another request: judged like a cross-origin hop.
    boolean changedMethod = !first.request().method().equals(live.request().method());
    return new Answer(stored, live.request().url(), null, redirect,
        redirect != 0 && (crossOrigin || changedMethod), false, resent, false);
  }

  /**
   * This answer, knowing that its attempt wrote the body {@code writes} times: more than once means
   * something sent the request again (not an answer to a first delivery), once or more means no
   * failure proves the attempt unsent.
   */
  public Answer afterWrites(int writes) {
    if (writes == 0) {
      return this;
    }
    return new Answer(response, url, failure, firstStatus, crossOriginHop, false,
        resentByClient || writes > 1, true);
  }

  /** Whether the HTTP client followed redirects before this answer. */
  public boolean followedRedirects() {
    return firstStatus != 0;
  }

  /**
   * Whether the failure proves nothing was written: the connection was never made. Any other
   * failure may have happened after the request reached the server.
   */
  public boolean provablyUnsent() {
    return unsent || !written && (failure instanceof ConnectException
        || failure instanceof UnknownHostException || failure instanceof NoRouteToHostException);
  }
}
