package dev.oncely.examples.snippets;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.examples.server.ReferenceServer;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Authenticator;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * An app that refreshes its OAuth token in an OkHttp {@link Authenticator} keeps doing so for
 * intents: the first attempt goes out with an expired token and is answered {@code 401}; the
 * interceptor asks the authenticator once and resends the same key and bytes with the fresh
 * token. One payment, never a refusal of the intent.
 *
 * <p>Teaches: an {@code Authenticator} works unchanged under {@code installOn(builder)}. Limit: a
 * refusal stays final when the authenticator gives nothing new (it returns null) and nothing before
 * was delivered.
 */
public final class TokenRefreshExample {
  private TokenRefreshExample() {}

  /** Pays once with a token that expires before the first attempt. */
  public static void main(String[] args) throws IOException {
    try (ReferenceServer server = ReferenceServer.builder().bearerToken("fresh-1").build()
        .start()) {
      AtomicInteger refreshes = new AtomicInteger();
      String[] token = {"expired"};
      Authenticator refresh = (route, response) -> {
        if (response.request().header("Authorization").equals("Bearer " + token[0])) {
          token[0] = "fresh-" + refreshes.incrementAndGet();   // your token endpoint here
        }
        return response.request().newBuilder().header("Authorization", "Bearer " + token[0])
            .build();
      };
      OkHttpClient.Builder builder = new OkHttpClient.Builder()
          .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
              .header("Authorization", "Bearer " + token[0]).build()))
          .authenticator(refresh);
      OkHttpClient http = IdempotencyInterceptor.create().installOn(builder).build();

      Request pay = new Request.Builder()
          .url(server.baseUrl() + "payments")
          .post(RequestBody.create(
              "{\"amount\":1200,\"currency\":\"JPY\",\"customer\":\"c-1\",\"order\":\"o-2\"}",
              MediaType.get("application/json")))
          .build();
      try (Response response = http.newCall(pay).execute()) {
        System.out.println("answer: " + response.code() + " " + response.body().string());
      }

      System.out.println("token refreshes: " + refreshes.get());
      System.out.println("payments created: " + server.stats().effects());
    }
  }
}
