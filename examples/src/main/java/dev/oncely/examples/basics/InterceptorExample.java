package dev.oncely.examples.basics;

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
 * Plain OkHttp with {@link IdempotencyInterceptor}: every {@code POST} gets a key that is kept
 * across the call's retries, so a lost answer is retried without a second charge. The key lives
 * only as long as the call; use the intent API to survive restarts.
 */
public final class InterceptorExample {
  private InterceptorExample() {}

  /** Sends 20 payments through a server that loses 30% of its answers, then prints its stats. */
  public static void main(String[] args) throws IOException {
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(FaultPlan.parse("drop=0.3,seed=7"))
        .build()
        .start()) {
      OkHttpClient http = new OkHttpClient.Builder()
          .addInterceptor(IdempotencyInterceptor.create())
          .build();
      for (int i = 0; i < 20; i++) {
        Request request = new Request.Builder()
            .url(server.baseUrl() + "payments")
            .post(RequestBody.create("{\"amount\":" + (1000 + i) + ",\"order\":\"o-" + i + "\"}",
                MediaType.get("application/json")))
            .build();
        try (Response response = http.newCall(request).execute()) {
          System.out.println("o-" + i + ": " + response.code()
              + (response.header("Idempotent-Replayed") != null ? " (replayed)" : ""));
        }
      }
      System.out.println("payments on the server: " + server.stats().effects()
          + ", duplicates: " + server.stats().duplicates()
          + ", answers dropped: " + server.stats().faults(FaultKind.DROP));
    }
  }
}
