package dev.oncely.consumer;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import mockwebserver3.MockWebServer;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.RequestBody;
import okhttp3.ResponseBody;
import retrofit2.Call;
import retrofit2.Response;
import retrofit2.Retrofit;
import retrofit2.http.Body;
import retrofit2.http.POST;
import retrofit2.http.Tag;

/**
 * One payment through Retrofit with the interceptor installed by {@code installOn(builder)}, the
 * intent named by {@code @Tag IntentTag} (the README's Retrofit note), against a server that
 * charges and then drops its answer. The app fails unless its class path holds exactly one OkHttp
 * and the server counted exactly one charge.
 */
public final class RetrofitApp {
  private RetrofitApp() {}

  /** The app's Retrofit interface: one extra {@code @Tag} parameter. */
  public interface Payments {
    /** Creates a payment; {@code intent} names it (operation, scope, business id). */
    @POST("payments")
    Call<ResponseBody> create(@Body RequestBody payment, @Tag IntentTag intent);
  }

  /** Pays order o-7 once; a non-zero exit (an exception) fails the consumer build. */
  public static void main(String[] args) throws IOException {
    List<URL> okhttps = Collections.list(
        ClassLoader.getSystemClassLoader().getResources("okhttp3/OkHttpClient.class"));
    if (okhttps.size() != 1) {
      throw new IllegalStateException("expected one OkHttp on the class path, found " + okhttps);
    }
    IdempotentServer payments = IdempotentServer.builder()
        .intentOf(IdempotentServer.jsonField("order"))
        .faults(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build())
        .build();
    // At start-up, as an app builds its client (an OkHttp 4 on the class path is refused here).
    IdempotencyInterceptor oncely =
        IdempotencyInterceptor.builder().store(new InMemoryIntentStore()).build();
    OkHttpClient http = oncely.installOn(new OkHttpClient.Builder()).build();

    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(payments);
      server.start();
      Payments api = new Retrofit.Builder().baseUrl(server.url("/")).client(http).build()
          .create(Payments.class);

      IntentTag order = IntentTag.builder()
          .operation("create-payment").scope("tenant-42").businessId("o-7").build();
      RequestBody body = RequestBody.create(
          "{\"amount\":1000,\"currency\":\"JPY\",\"order\":\"o-7\"}",
          MediaType.get("application/json"));
      Response<ResponseBody> response = api.create(body, order).execute();
      try (ResponseBody answer = response.body()) {
        if (response.code() != 201 || answer == null) {
          throw new IllegalStateException("expected 201, got " + response);
        }
      }
    }
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
    payments.ledger().assertExactlyOneEffectEach(List.of("o-7"));
    if (payments.ledger().size() != 1) {
      throw new IllegalStateException("expected one effect, got " + payments.ledger().all());
    }
    System.out.println("OkHttp " + new ArrayList<>(okhttps) + ", kotlin-stdlib "
        + kotlin.KotlinVersion.CURRENT + ": one intent, "
        + payments.requestCount() + " requests, " + payments.ledger().size() + " effect");
  }
}
