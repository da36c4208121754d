package dev.oncely.client.internal.http;

import dev.oncely.client.internal.Origins;
import dev.oncely.client.internal.drive.Answer;
import java.io.IOException;
import okhttp3.Call;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.internal.connection.RealCall;

/**
 * The interceptor's network half ({@code installOn} adds it as a network interceptor), which sees
 * every request OkHttp puts on a connection, whoever caused it: the engine's attempts, OkHttp's
 * own silent resends, an outer interceptor re-running the chain. For a request the engine sent
 * for an intent (a {@link Mark}ed one) it:
 *
 * <ul>
 *   <li>refuses it when its origin is not the one it was marked for;
 *   <li>counts it in the call's {@link WireWrites} when it has no body (a body counts its own
 *       writes), so a {@code DELETE} OkHttp resends after a dropped connection is a counted
 *       delivery like a {@code POST};
 *   <li>hides from OkHttp what OkHttp would follow on its own before the engine judged it: the
 *       {@code Location} of a 3xx (with OkHttp's default {@code followRedirects(true)} a {@code
 *       303} to another origin would be followed with the app's headers and the key), and a
 *       refusal of the credentials ({@code 401}, {@code 407}), which would run the app's
 *       authenticator and then drop its follow-up for the one-shot body. The engine asks the
 *       authenticator itself, once ({@link AuthenticatorRenewal}), with the route kept here.
 * </ul>
 *
 * <p>The application half puts both back ({@link #restore}) before the answer is judged. A client
 * that follows redirects, or resends bodyless requests on its own, without the network half is
 * refused before anything is sent ({@link #checkInstalled}).
 */
public final class NetworkHalf {
  /** Response header that carries a hidden {@code Location} between the two halves. */
  static final String HIDDEN_LOCATION = "Oncely-Hidden-Location";
  /** Response header that carries a hidden {@code 401} or {@code 407} between the two halves. */
  static final String HIDDEN_STATUS = "Oncely-Hidden-Status";
  /**
   * The status a hidden refusal travels under: one OkHttp neither follows, retries nor caches.
   */
  private static final int HIDDEN_CODE = 299;

  /**
   * Marks a request the engine sends for an intent, with the URL it was sent to; {@code submit}
   * tells the intent's own request from a poll of its status URL.
   */
  public record Mark(HttpUrl url, boolean submit) {}

  private NetworkHalf() {}

  /** Sends {@code chain}'s request as the network half; see the class comment. */
  public static Response intercept(Interceptor.Chain chain) throws IOException {
    Request request = chain.request();
    Mark mark = request.tag(Mark.class);
    if (mark == null) {
      return chain.proceed(request);
    }
    if (!Origins.same(mark.url(), request.url())) {
      throw new IOException("refused to send a follow-up of an intent's request to another origin ("
          + Origins.of(request.url()) + "); redirects of intents are judged, never followed");
    }
    CallMemory memory = CallMemory.of(chain.call());
    if (mark.submit() && request.body() == null) {
      memory.writes().started();
    }
    Response response = chain.proceed(request);
    int code = response.code();
    if (Answer.refusesCredentials(code)) {
      memory.challenged(chain.connection() == null ? null : chain.connection().route());
      return response.newBuilder().code(HIDDEN_CODE)
          .headers(response.headers().newBuilder().set(HIDDEN_STATUS, Integer.toString(code))
              .build())
          .build();
    }
    String location = response.header("Location");
    if (location == null || code < 300 || code >= 400) {
      return response;
    }
    Headers hidden = response.headers().newBuilder().removeAll("Location")
        .addUnsafeNonAscii(HIDDEN_LOCATION, location).build();
    return response.newBuilder().headers(hidden).build();
  }

  /** The application half: {@code response} with what the network half hid put back. */
  static Response restore(Response response) {
    String status = response.header(HIDDEN_STATUS);
    String location = response.header(HIDDEN_LOCATION);
    if (status == null && location == null) {
      return response;
    }
    Headers.Builder headers = response.headers().newBuilder().removeAll(HIDDEN_STATUS)
        .removeAll(HIDDEN_LOCATION);
    if (location != null) {
      headers.addUnsafeNonAscii("Location", location);
    }
    Response.Builder restored = response.newBuilder().headers(headers.build());
    if (status != null && response.code() == HIDDEN_CODE) {
      restored.code(Integer.parseInt(status));
    }
    return restored.build();
  }

  /** The client running {@code call}, or null when it is not OkHttp's own call. */
  static OkHttpClient clientOf(Call call) {
    return call instanceof RealCall real ? real.getClient() : null;
  }

  /** Whether {@code chain}'s client runs {@code networkHalf} as a network interceptor. */
  static boolean installed(Interceptor.Chain chain, Interceptor networkHalf) {
    OkHttpClient client = clientOf(chain.call());
    return client != null && client.networkInterceptors().contains(networkHalf);
  }

  /**
   * Refuses to go on when {@code chain}'s client would send an intent's request again, or follow
   * its redirect, without {@code networkHalf} seeing it: one that follows redirects (a redirect of
   * an intent could leave its origin with the app's headers and the key before the engine saw it),
   * or, for a request without a body ({@code bodyless}), one that resends after a dropped
   * connection ({@code retryOnConnectionFailure}, OkHttp's default: nothing would count that
   * second delivery).
   *
   * @throws IllegalStateException naming the fix
   */
  public static void checkInstalled(Interceptor.Chain chain, Interceptor networkHalf,
      boolean bodyless) {
    OkHttpClient client = clientOf(chain.call());
    if (client == null || client.networkInterceptors().contains(networkHalf)) {
      return;
    }
    if (client.followRedirects()) {
      throw new IllegalStateException("this OkHttpClient follows redirects, so a redirect of an"
          + " intent could leave its origin with your headers and the key before Oncely judges it;"
          + " install the interceptor with IdempotencyInterceptor.installOn(builder), which adds"
          + " it as a network interceptor too, or build the client with followRedirects(false)");
    }
    if (bodyless && client.retryOnConnectionFailure()) {
      throw new IllegalStateException("this OkHttpClient resends a request without a body after a"
          + " dropped connection (retryOnConnectionFailure), so a second delivery of this intent"
          + " would go uncounted; install the interceptor with"
          + " IdempotencyInterceptor.installOn(builder), which counts every request it sends, or"
          + " build the client with retryOnConnectionFailure(false)");
    }
  }
}
