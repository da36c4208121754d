package dev.oncely.client.testing;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Response;

/** Runs a call with {@code enqueue()} for tests that expect its callback to hear of a failure. */
public final class AsyncCalls {
  private AsyncCalls() {}

  /**
   * Enqueues {@code call}; the future completes with the {@link IOException} its {@code
   * onFailure} got, or exceptionally with an {@link AssertionError} if it got a response instead.
   */
  public static CompletableFuture<IOException> failureOf(Call call) {
    CompletableFuture<IOException> failure = new CompletableFuture<>();
    call.enqueue(new Callback() {
      @Override
      public void onFailure(Call c, IOException e) {
        failure.complete(e);
      }

      @Override
      public void onResponse(Call c, Response response) {
        response.close();
        failure.completeExceptionally(new AssertionError("expected a failure, got "
            + response.code()));
      }
    });
    return failure;
  }
}
