package dev.oncely.cli;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.RetryPolicy;
import dev.oncely.persistence.StoreEngine;
import java.nio.file.Path;
import java.time.Duration;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * A child JVM standing in for an app that pays through the interceptor (args: engine, store path,
 * URL, backoff in ms): it sends one tagged intent whose attempts time out after 1.5 s, retrying
 * after the backoff, until it is killed.
 */
public final class DrivingAppChild {
  private DrivingAppChild() {}

  public static void main(String[] args) throws Exception {
    Duration backoff = Duration.ofMillis(Long.parseLong(args[3]));
    IntentStore store = StoreEngine.parse(args[0]).open(Path.of(args[1]));
    IdempotencyInterceptor oncely = IdempotencyInterceptor.builder().store(store)
        .retryPolicy(RetryPolicy.builder().maxAttempts(6).baseDelay(backoff).maxDelay(backoff)
            .attemptTimeout(Duration.ofMillis(1500)).deadline(Duration.ofMinutes(2)).build())
        .build();
    OkHttpClient http = oncely.installOn(new OkHttpClient.Builder()).build();
    Request request = new Request.Builder().url(args[2])
        .tag(IntentTag.class, IntentTag.builder().operation("create-payment").scope("tenant-7")
            .businessId("order-1").build())
        .post(RequestBody.create("{\"amount\":1200}", MediaType.get("application/json")))
        .build();
    http.newCall(request).execute().close();
  }
}
