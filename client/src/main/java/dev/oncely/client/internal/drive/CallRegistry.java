package dev.oncely.client.internal.drive;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.Call;

/** The calls on the wire right now, so closing the client can cancel them. */
public final class CallRegistry {
  private final Set<Call> calls = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /** Registers {@code call}; cancels it at once if the registry is closed. */
  public void add(Call call) {
    calls.add(call);
    if (closed) {
      call.cancel();
    }
  }

  /** Forgets {@code call}. */
  public void remove(Call call) {
    calls.remove(call);
  }

  /** Whether {@link #closeAll()} ran. */
  public boolean isClosed() {
    return closed;
  }

  /** Cancels every registered call and every later one. */
  public void closeAll() {
    closed = true;
    for (Call call : calls) {
      call.cancel();
    }
  }
}
