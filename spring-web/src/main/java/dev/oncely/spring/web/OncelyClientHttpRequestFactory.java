package dev.oncely.spring.web;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IntentOutcome;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;

/**
 * A {@link ClientHttpRequestFactory} on OkHttp with an {@link IdempotencyInterceptor} installed, so
 * that {@code RestClient.builder().requestFactory(factory)} (or a {@code RestTemplate}) sends unsafe
 * calls as idempotent intents: one key per call across all its retries, the same body bytes on
 * every attempt, {@code 202}/{@code 409}/{@code 422}/{@code Retry-After} resolved, and, for a call
 * that names its intent with {@link IntentAttributes#of} and an interceptor with a store, a durable
 * record written before the first byte and resumable after a restart ({@link #resumePending}).
 *
 * <p><b>Installed safely.</b> The factory builds its own {@link OkHttpClient} from the app's
 * (sharing its connection pool, dispatcher, timeouts and interceptors) with the idempotency
 * interceptor added <em>last</em> among the application interceptors, so the app's interceptors
 * (credentials, tracing) run once per call and again on a resume, while every attempt of the intent
 * runs inside it. Redirects are not followed by OkHttp ({@code followRedirects(false)}, like the
 * JDK client's default): a followed redirect would carry the key, and cookies, to wherever the
 * {@code Location} points; the interceptor judges an intent's redirect itself (a {@code 307}/{@code
 * 308} within the origin is resent with the same key, anything else needs reconciliation), and a
 * {@code 3xx} of any other call reaches the app as it is. The interceptor is also a network
 * interceptor of that client ({@link IdempotencyInterceptor#installOn}), so every request of an
 * intent that reaches the network is a counted attempt, OkHttp's own resend after a dropped
 * connection included; the app's {@code retryOnConnectionFailure} is kept for its other calls.
 *
 * <p><b>Errors.</b> When the outcome of a call is not known (no attempt got an answer before the
 * retry policy's attempts or deadline ran out, the last answer could be misread as final) or the
 * intent needs reconciliation, a call throws {@link UnknownOutcomeException}, a {@code
 * ResourceAccessException} whose {@link UnknownOutcomeException#outcome() outcome()} is the
 * {@link IntentOutcome} the intent API would report ({@code Pending} or {@code
 * NeedsReconciliation}). Such an outcome is never a failure: resend the same call (same business
 * id), never a new one. When the interceptor refuses to send (a changed body under a used business
 * id, a body over the limit, an invalid key) or the store fails, {@code RestClient} throws a plain
 * {@code ResourceAccessException} caused by the interceptor's {@link
 * dev.oncely.client.IntentIOException}. A call the app canceled, and any other I/O error, is
 * reported by Spring as usual.
 *
 * <p>Why a request factory and not a {@code ClientHttpRequestInterceptor}: see {@code
 * docs/spring.md}. Thread-safe; share one instance.
 */
public final class OncelyClientHttpRequestFactory implements ClientHttpRequestFactory,
    AutoCloseable {
  private final IdempotencyInterceptor interceptor;
  private final OkHttpClient client;

  private OncelyClientHttpRequestFactory(IdempotencyInterceptor interceptor, OkHttpClient client) {
    this.interceptor = interceptor;
    this.client = client;
  }

  /**
   * Returns a builder for a factory that sends through {@code interceptor}.
   *
   * @param interceptor the interceptor every call goes through; give it a store for durable intents
   * @return a builder with a new {@link OkHttpClient} as the app's client
   * @throws NullPointerException if {@code interceptor} is null
   */
  public static Builder builder(IdempotencyInterceptor interceptor) {
    return new Builder(Objects.requireNonNull(interceptor, "interceptor"));
  }

  @Override
  public ClientHttpRequest createRequest(URI uri, HttpMethod httpMethod) {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(httpMethod, "httpMethod");
    return new OncelyClientHttpRequest(client, uri, httpMethod);
  }

  /**
   * The OkHttp client calls are sent with: the app's client with the interceptor in it. Use it as
   * the app client of {@link dev.oncely.client.DueWorkScheduler#builder(IdempotencyInterceptor,
   * okhttp3.Call.Factory)}.
   *
   * @return the client
   */
  public OkHttpClient okHttpClient() {
    return client;
  }

  /**
   * The interceptor every call goes through.
   *
   * @return the interceptor
   */
  public IdempotencyInterceptor interceptor() {
    return interceptor;
  }

  /**
   * Drives every unfinished record of the interceptor's store again through {@link
   * #okHttpClient()} (after a restart), with its stored key, bytes and non-secret headers; the
   * app's OkHttp interceptors add credentials again. See {@link
   * IdempotencyInterceptor#resumePending}.
   *
   * @param outcomes told the outcome of each resumed intent; its exceptions are caught and logged
   * @return one future per unfinished record, oldest first
   * @throws NullPointerException if {@code outcomes} is null
   * @throws IllegalStateException if the interceptor has no store
   * @throws dev.oncely.client.StoreException if the store cannot list the records
   */
  public List<CompletableFuture<IntentOutcome>> resumePending(Consumer<IntentOutcome> outcomes) {
    return interceptor.resumePending(client, outcomes);
  }

  /**
   * Closes the interceptor, which stops every intent it drives: once this returns, no attempt of
   * them reaches the wire, and each stays resumable (see {@link IdempotencyInterceptor#close()}).
   * Spring calls it when the context closes, before the store closes. Idempotent; the app's OkHttp
   * client is left open.
   */
  @Override
  public void close() {
    interceptor.close();
  }

  /** Builds {@link OncelyClientHttpRequestFactory}s. Not thread-safe. */
  public static final class Builder {
    private final IdempotencyInterceptor interceptor;
    private OkHttpClient okHttpClient;

    private Builder(IdempotencyInterceptor interceptor) {
      this.interceptor = interceptor;
    }

    /**
     * Sets the app's client: its interceptors, timeouts, certificates and connection pool are kept
     * (default: a new {@link OkHttpClient}). It must not contain an {@link
     * IdempotencyInterceptor}: the factory adds its own.
     *
     * @param okHttpClient the app's client
     * @return this builder
     * @throws NullPointerException if {@code okHttpClient} is null
     */
    public Builder okHttpClient(OkHttpClient okHttpClient) {
      this.okHttpClient = Objects.requireNonNull(okHttpClient, "okHttpClient");
      return this;
    }

    /**
     * Returns the factory.
     *
     * @return the factory
     * @throws IllegalArgumentException if the app's client already contains an {@link
     *     IdempotencyInterceptor}, as an application or network interceptor: two would give one
     *     call two keys
     */
    public OncelyClientHttpRequestFactory build() {
      OkHttpClient base = okHttpClient != null ? okHttpClient : new OkHttpClient();
      refuseSecondInterceptor(base.interceptors(), "an application");
      refuseSecondInterceptor(base.networkInterceptors(), "a network");
      // Both halves: the network half counts every request of an intent on the wire, OkHttp's
      // silent resend of a bodyless one included, so the app's retryOnConnectionFailure is kept
      // for its other calls.
      OkHttpClient client = interceptor.installOn(base.newBuilder())
          .followRedirects(false)
          .followSslRedirects(false)
          .build();
      return new OncelyClientHttpRequestFactory(interceptor, client);
    }

    private static void refuseSecondInterceptor(List<Interceptor> interceptors, String kind) {
      for (Interceptor each : interceptors) {
        if (each instanceof IdempotencyInterceptor) {
          throw new IllegalArgumentException("the OkHttpClient already has an IdempotencyInterceptor"
              + " as " + kind + " interceptor; give the factory a client without one (it adds its"
              + " own, last)");
        }
      }
    }
  }
}
