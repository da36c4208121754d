package dev.oncely.client.internal;

import java.io.IOException;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.internal.connection.RealCall;

/**
 * Keeps OkHttp from following a redirect of an intent's request inside {@code chain.proceed},
 * where the app's interceptors run before the engine can judge the hop: with OkHttp's default
 * {@code followRedirects(true)} a {@code 303} to another origin would be followed with the app's
 * headers and the key. The interceptor's network half hides the {@code Location} of every 3xx
 * answering a {@link Mark}ed request (OkHttp follows nothing without it) and refuses to send a
 * marked request to an origin other than the one it was marked for; its application half puts the
 * header back before the answer is judged. An app client that follows redirects without the
 * network half is refused before anything is sent.
 */
public final class RedirectGuard {
  /** Response header that carries a hidden {@code Location} between the two halves. */
  static final String HIDDEN_LOCATION = "Oncely-Hidden-Location";

  /** Marks a request the engine sends for an intent, with the URL it was sent to. */
  public record Mark(HttpUrl url) {}

  private RedirectGuard() {}

  /** The network half: sends {@code chain}'s request, hiding the {@code Location} of a 3xx. */
  public static Response guard(Interceptor.Chain chain) throws IOException {
    Request request = chain.request();
    Mark mark = request.tag(Mark.class);
    if (mark == null) {
      return chain.proceed(request);
    }
    if (!Origins.same(mark.url(), request.url())) {
      throw new IOException("refused to send a follow-up of an intent's request to another origin ("
          + Origins.of(request.url()) + "); redirects of intents are judged, never followed");
    }
    Response response = chain.proceed(request);
    String location = response.header("Location");
    if (location == null || response.code() < 300 || response.code() >= 400) {
      return response;
    }
    Headers hidden = response.headers().newBuilder().removeAll("Location")
        .addUnsafeNonAscii(HIDDEN_LOCATION, location).build();
    return response.newBuilder().headers(hidden).build();
  }

  /** The application half: {@code response} with a hidden {@code Location} put back. */
  static Response restore(Response response) {
    String location = response.header(HIDDEN_LOCATION);
    if (location == null) {
      return response;
    }
    Headers restored = response.headers().newBuilder().removeAll(HIDDEN_LOCATION)
        .addUnsafeNonAscii("Location", location).build();
    return response.newBuilder().headers(restored).build();
  }

  /**
   * Refuses to go on when {@code chain}'s client follows redirects but does not run {@code
   * networkHalf} as a network interceptor: a redirect of an intent could then leave its origin
   * with the app's headers and the key before the engine saw it.
   *
   * @throws IllegalStateException naming the fix
   */
  public static void checkInstalled(Interceptor.Chain chain, Interceptor networkHalf) {
    if (!(chain.call() instanceof RealCall call)) {
      return;
    }
    OkHttpClient client = call.getClient();
    if (client.followRedirects() && !client.networkInterceptors().contains(networkHalf)) {
      throw new IllegalStateException("this OkHttpClient follows redirects, so a redirect of an"
          + " intent could leave its origin with your headers and the key before Oncely judges it;"
          + " install the interceptor with IdempotencyInterceptor.installOn(builder), which adds"
          + " it as a network interceptor too, or build the client with followRedirects(false)");
    }
  }
}
