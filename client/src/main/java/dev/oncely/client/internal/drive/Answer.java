package dev.oncely.client.internal.drive;

import dev.oncely.client.internal.Origins;
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
 * @param writes how many times this attempt's request was written toward the wire ({@link
 *     WireWrites}): more than once means the HTTP client or an outer interceptor sent it again,
 *     once or more that no failure proves it unsent
 * @param renewal what asking for fresh credentials gave after a {@code 401} or {@code 407}
 */
public record Answer(StoredResponse response, HttpUrl url, IOException failure, int firstStatus,
    boolean crossOriginHop, boolean unsent, boolean resentByClient, int writes,
    Renewal renewal) {

  /**
   * What the wire got when an answer refused the credentials ({@code 401}, {@code 407}) and it asked
   * the app's credential source (a {@code HeaderProvider}, the client's {@code Authenticator}) for
   * fresh ones, at once and once per refusal.
   */
  public enum Renewal {
    /** Not a refusal of credentials, or a target that never gets the app's credentials. */
    NOT_ASKED,
    /** The source gave credentials other than those the refused attempt carried. */
    RENEWED,
    /** The source gave nothing, or the same credentials again. */
    UNCHANGED,
    /** The source failed (an exception): it may give fresh credentials later. */
    FAILED
  }

  /** Whether {@code status} refuses the credentials of the request it answers. */
  public static boolean refusesCredentials(int status) {
    return status == 401 || status == 407;
  }

  /** A failure of an attempt to {@code url}. */
  public static Answer failed(HttpUrl url, IOException failure) {
    return new Answer(null, url, failure, 0, false, false, false, 0, Renewal.NOT_ASKED);
  }

  /** A failure before anything was handed to the HTTP client (for example a header provider's). */
  public static Answer unsent(HttpUrl url, IOException failure) {
    return new Answer(null, url, failure, 0, false, true, false, 0, Renewal.NOT_ASKED);
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
        redirect != 0 && (crossOrigin || changedMethod), false, resent, 0, Renewal.NOT_ASKED);
  }

  /**
   * This answer, knowing that its attempt's request was written {@code writes} times: more than
   * once means something sent it again (not an answer to a first delivery), once or more means no
   * failure proves the attempt unsent.
   */
  public Answer afterWrites(int writes) {
    if (writes == 0) {
      return this;
    }
    return new Answer(response, url, failure, firstStatus, crossOriginHop, false,
        resentByClient || writes > 1, writes, renewal);
  }

  /** This answer, with what asking for fresh credentials after it gave. */
  public Answer renewed(Renewal outcome) {
    return new Answer(response, url, failure, firstStatus, crossOriginHop, unsent, resentByClient,
        writes, outcome);
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
    return unsent || writes == 0 && (failure instanceof ConnectException
        || failure instanceof UnknownHostException || failure instanceof NoRouteToHostException);
  }
}
