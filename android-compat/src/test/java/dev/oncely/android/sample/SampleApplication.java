package dev.oncely.android.sample;

import android.app.Application;
import dev.oncely.android.OncelyAndroid;
import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.dialect.Dialects;
import java.util.concurrent.CompletableFuture;
import okhttp3.OkHttpClient;

/**
 * The app the build shrinks with ProGuard (android-compat's verify phase) against the Android
 * API, with every consumer rule its jars carry: both entry points, as the quick start uses them.
 * A shrink warning (a class missing on Android) fails the build.
 */
public final class SampleApplication extends Application {
  private OncelyAndroid oncely;
  private OkHttpClient plain;

  @Override
  public void onCreate() {
    super.onCreate();
    OkHttpClient okHttp = new OkHttpClient();
    oncely = OncelyAndroid.start(this,
        IdempotentClient.builder().okHttpClient(okHttp).dialect(Dialects.stripe()));
    plain = IdempotencyInterceptor.create().installOn(okHttp.newBuilder()).build();
  }

  /** Submits one payment. */
  public CompletableFuture<IntentOutcome> pay(String accountId, String json) {
    return oncely.client().submit(IntentSpec.builder()
        .operation("create-payment").scope(accountId)
        .post("https://api.example.com/payments").jsonBody(json)
        .build());
  }

  /** The plain OkHttp client with the interceptor. */
  public OkHttpClient plainClient() {
    return plain;
  }
}
