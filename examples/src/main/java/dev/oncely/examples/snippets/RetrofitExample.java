package dev.oncely.examples.snippets;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.persistence.StoreEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Retrofit with no adapter: an {@link IntentTag} passed with {@code @Tag} makes each call a
 * durable intent for the {@link IdempotencyInterceptor} with a store. The same business id after a
 * restart gets the same key (here: answered from the store, because the first call finished), and
 * a changed body under it is refused before anything is sent.
 *
 * <p>Teaches: the interceptor as the whole SDK for Retrofit users. Kept compiling and running by
 * {@code SnippetsTest}.
 */
public final class RetrofitExample {
  private RetrofitExample() {}

  /** The app's Retrofit interface: one extra {@code @Tag} parameter. */
  public interface Payments {
    /** Creates a payment; {@code intent} names it (operation, scope, business id). */
    @POST("payments")
    Call<ResponseBody> create(@Body RequestBody payment, @Tag IntentTag intent);
  }

  /** Pays order o-1 once through a server that drops half of its answers after charging. */
  public static void main(String[] args) throws IOException {
    Path dir = Files.createTempDirectory("oncely-retrofit");
    Path file = dir.resolve("intents.db");
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(FaultPlan.parse("drop=0.5,seed=3")).build().start()) {
      IntentTag order = IntentTag.builder().operation("create-payment").scope("customer-c-1")
          .businessId("o-1").build();
      RequestBody body = RequestBody.create(
          "{\"amount\":1200,\"currency\":\"JPY\",\"customer\":\"c-1\",\"order\":\"o-1\"}",
          MediaType.get("application/json"));

      try (IntentStore store = StoreEngine.defaultEngine().open(file)) {
        Response<ResponseBody> first = payments(server, store).create(body, order).execute();
        System.out.println("first call: " + first.code());
        first.body().close();
      }
      try (IntentStore store = StoreEngine.defaultEngine().open(file)) {
        Payments afterRestart = payments(server, store);
        Response<ResponseBody> again = afterRestart.create(body, order).execute();
        System.out.println("after a restart: " + again.code() + ", from the store: "
            + "true".equals(again.headers().get(IdempotencyInterceptor.STORED_RESPONSE_HEADER)));
        again.body().close();
        RequestBody changed = RequestBody.create("{\"amount\":9999,\"order\":\"o-1\"}",
            MediaType.get("application/json"));
        try {
          afterRestart.create(changed, order).execute();
        } catch (IntentIOException refused) {
          System.out.println("changed body refused: "
              + refused.getCause().getClass().getSimpleName());
        }
      }
      System.out.println("payments created: " + server.stats().effects());
    }
  }

  private static Payments payments(ReferenceServer server, IntentStore store) {
    IdempotencyInterceptor oncely = IdempotencyInterceptor.builder().store(store).build();
    OkHttpClient http = oncely.installOn(new OkHttpClient.Builder())
        .build();
    return new Retrofit.Builder().baseUrl(server.baseUrl()).client(http).build()
        .create(Payments.class);
  }
}
