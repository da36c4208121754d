package dev.oncely.examples.snippets;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.examples.server.FaultKind;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import java.io.IOException;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The smallest step: keep your OkHttp code and add {@link IdempotencyInterceptor}. Each {@code POST}
 * gets one key for all of its retries, so a lost answer is retried without charging twice.
 *
 * <p>Teaches: one line of setup; what "exactly once within one call" looks like on the server.
 * Limit: the key lives only as long as the call; to survive a restart use {@link
 * DurableIntentExample}.
 */
public final class InterceptorExample {
  private InterceptorExample() {}

  /** Pays once through a server that drops half of its answers after charging. */
  public static void main(String[] args) throws IOException {
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(FaultPlan.parse("drop=0.5,seed=3"))
        .build()
        .start()) {
      OkHttpClient http = IdempotencyInterceptor.create().installOn(new OkHttpClient.Builder())
          .build();

      Request pay = new Request.Builder()
          .url(server.baseUrl() + "payments")
          .post(RequestBody.create(
              "{\"amount\":1200,\"currency\":\"JPY\",\"customer\":\"c-1\",\"order\":\"o-1\"}",
              MediaType.get("application/json")))
          .build();
      try (Response response = http.newCall(pay).execute()) {
        System.out.println("answer: " + response.code() + " " + response.body().string());
      }

      System.out.println("answers dropped by the server: "
          + server.stats().faults(FaultKind.DROP));
      System.out.println("payments created: " + server.stats().effects());
    }
  }
}
