package dev.oncely.client.internal;

import java.util.function.Supplier;
import okhttp3.Call;

/**
 * What the interceptor remembers of one OkHttp call across every run of the chain: an app
 * interceptor outside ours that retries runs {@code intercept} once more for the same call, which
 * must go out under the same key and know that its body was already written. Kept as a tag of the
 * call itself, so it lives exactly as long as the call. A new call is a new intent unless it is
 * tagged with the same business id ({@code IntentTag}) or carries the same app-set key.
 * Thread-safe.
 */
public final class CallMemory {
  private final BodyWrites writes = new BodyWrites();
  private String key;

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

  /** The writes of this call's body, over all runs. */
  public BodyWrites writes() {
    return writes;
  }
}
