package dev.oncely.client.internal.http;

import java.io.IOException;
import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * The interceptor's network role, one object with one job: it sees every request of an intent
 * OkHttp puts on a connection ({@link NetworkHalf}), so no redirect is followed before the engine
 * judges it, every request on the wire is a counted attempt, and a credential refusal reaches the
 * engine. The application role is the {@code IdempotencyInterceptor} itself; {@code installOn}
 * adds both.
 */
public final class NetworkRole implements Interceptor {
  @Override
  public Response intercept(Chain chain) throws IOException {
    return NetworkHalf.intercept(chain);
  }

  @Override
  public String toString() {
    return "IdempotencyInterceptor (network role)";
  }
}
