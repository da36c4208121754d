package dev.oncely.client.internal.http;

import java.util.function.Supplier;
import okhttp3.Call;
import okhttp3.Route;

/**
 * What the interceptor remembers of one OkHttp call across every run of the chain: an app
 * interceptor outside ours that retries runs {@code intercept} once more for the same call, which
 * must go out under the same key and scope and know that its request was already written. Kept as
 * a tag of the call itself, so it lives exactly as long as the call. A new call is a new intent
 * unless it is tagged with the same business id ({@code IntentTag}) or carries the same app-set
 * key. It also carries, from the network half to the application half, the route of an answer
 * that refused the credentials. Thread-safe.
 */
public final class CallMemory {
  private final WireWrites writes = new WireWrites();
  private String key;
  private String scope;
  private volatile Route challengedRoute;

  /** The memory of {@code call}, created on its first run. */
  public static CallMemory of(Call call) {
    return call.tag(CallMemory.class, CallMemory::new);
  }

  /** The key of this call: minted by {@code mint} on the first run, the same on every later one. */
  public synchronized String key(Supplier<String> mint) {
    if (key == null) {
      key = mint.get();
    }
    return key;
  }

  /**
   * The scope of this untagged call: computed by {@code derive} on the first run (from the
   * request's origin and credentials), the same on every later one, even after the app refreshed
   * its token.
   */
  public synchronized String scope(Supplier<String> derive) {
    if (scope == null) {
      scope = derive.get();
    }
    return scope;
  }

  /**
   * Notes the route of the connection whose answer refused the credentials, which the call's
   * authenticator is given (null when unknown).
   */
  void challenged(Route route) {
    challengedRoute = route;
  }

  /** The route of the last answer that refused the credentials, or null. */
  Route challengedRoute() {
    return challengedRoute;
  }

  /** The writes of this call's body, over all runs. */
  public WireWrites writes() {
    return writes;
  }
}
