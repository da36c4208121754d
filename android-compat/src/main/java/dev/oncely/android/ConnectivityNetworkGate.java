package dev.oncely.android;

import android.content.Context;
import android.net.ConnectivityManager;
import android.net.Network;
import android.os.Build;
import android.os.Handler;
import android.os.Looper;
import android.util.Log;
import dev.oncely.client.NetworkGate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.codehaus.mojo.animal_sniffer.IgnoreJRERequirement;

/**
 * A {@link NetworkGate} driven by the device's default network
 * ({@link ConnectivityManager#registerDefaultNetworkCallback}): open while a default network
 * exists, closed after it is lost, so the client pauses attempts offline instead of burning its
 * attempts and retry budget. Thread-safe; {@link #isOpen()} and {@link #whenOpen} never block and
 * never throw.
 *
 * <p>System callbacks arrive on the {@linkplain Builder#callbackHandler handler} (default: the main
 * looper); actions waiting in {@link #whenOpen} run there when the network returns, and the
 * {@linkplain Builder#onReconnect reconnect action} runs on its own executor, so nothing slow ever
 * runs on the main thread. {@link #close()} unregisters the callback and drops waiting actions.
 *
 * <p>Needs the {@code android.permission.ACCESS_NETWORK_STATE} permission in the app's manifest.
 */
public final class ConnectivityNetworkGate implements NetworkGate, AutoCloseable {
  private static final String TAG = "OncelyNetworkGate";

  private final ConnectivityManager connectivity;
  private final Executor reconnectExecutor;
  private final Runnable onReconnect;
  private final ConnectivityManager.NetworkCallback callback;
  private final Object lock = new Object();
  private final List<Runnable> waiting = new ArrayList<>();
  private Network current;
  private boolean closed;

  private ConnectivityNetworkGate(Builder b) {
    this.connectivity = b.connectivity;
    this.reconnectExecutor = b.reconnectExecutor;
    this.onReconnect = b.onReconnect;
    this.current = connectivity.getActiveNetwork();
    this.callback = register(connectivity, new Callback(), b.handler, Build.VERSION.SDK_INT);
  }

  /**
   * Registers {@code callback} for the default network so that it runs on {@code handler}, and
   * returns what must be unregistered. The handler overload needs API 26; below it the system
   * calls on its own thread, so the registered callback posts each event to the handler.
   */
  static ConnectivityManager.NetworkCallback register(ConnectivityManager connectivity,
      ConnectivityManager.NetworkCallback callback, Handler handler, int sdkInt) {
    if (sdkInt >= Build.VERSION_CODES.O) {
      registerOnHandler(connectivity, callback, handler);
      return callback;
    }
    ConnectivityManager.NetworkCallback posting = new PostingCallback(callback, handler);
    connectivity.registerDefaultNetworkCallback(posting);
    return posting;
  }

  @IgnoreJRERequirement
  private static void registerOnHandler(ConnectivityManager connectivity,
      ConnectivityManager.NetworkCallback callback, Handler handler) {
    connectivity.registerDefaultNetworkCallback(callback, handler);
  }

  /**
   * Returns a builder for a gate on {@code context}'s {@link ConnectivityManager}.
   *
   * @throws NullPointerException if {@code context} is null
   * @throws IllegalStateException if the context has no connectivity service
   */
  public static Builder builder(Context context) {
    return new Builder(Objects.requireNonNull(context, "context"));
  }

  @Override
  public boolean isOpen() {
    synchronized (lock) {
      return current != null;
    }
  }

  @Override
  public void whenOpen(Runnable action) {
    Objects.requireNonNull(action, "action");
    synchronized (lock) {
      if (current == null) {
        if (!closed) {
          waiting.add(action);
          lock.notifyAll();
        }
        return;
      }
    }
    runSafely(action);
  }

  /** Unregisters the network callback and drops waiting actions. Idempotent. */
  @Override
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      waiting.clear();
    }
    try {
      connectivity.unregisterNetworkCallback(callback);
    } catch (IllegalArgumentException alreadyGone) {
      // The system dropped the registration itself; nothing is left to release.
    }
  }

  /** Waits until at least {@code count} actions wait for the network; for tests. */
  boolean awaitWaiting(int count, long timeout, TimeUnit unit) throws InterruptedException {
    long end = System.nanoTime() + unit.toNanos(timeout);
    synchronized (lock) {
      while (waiting.size() < count) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
      return true;
    }
  }

  private void opened(Network network) {
    List<Runnable> ready;
    boolean reconnected;
    synchronized (lock) {
      if (closed) {
        return;
      }
      reconnected = current == null;
      current = network;
      ready = new ArrayList<>(waiting);
      waiting.clear();
    }
    for (Runnable action : ready) {
      runSafely(action);
    }
    if (reconnected && onReconnect != null) {
      reconnectExecutor.execute(() -> runSafely(onReconnect));
    }
  }

  private void lost(Network network) {
    synchronized (lock) {
      if (network.equals(current)) {
        current = null;
      }
    }
  }

  private static void runSafely(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      Log.w(TAG, "a network-gate action failed: " + e.getClass().getName());
    }
  }

  private final class Callback extends ConnectivityManager.NetworkCallback {
    @Override
    public void onAvailable(Network network) {
      opened(network);
    }

    @Override
    public void onLost(Network network) {
      lost(network);
    }
  }

  /** Hands the system's calls to {@code target} on {@code handler} (below API 26). */
  private static final class PostingCallback extends ConnectivityManager.NetworkCallback {
    private final ConnectivityManager.NetworkCallback target;
    private final Handler handler;

    PostingCallback(ConnectivityManager.NetworkCallback target, Handler handler) {
      this.target = target;
      this.handler = handler;
    }

    @Override
    public void onAvailable(Network network) {
      handler.post(() -> target.onAvailable(network));
    }

    @Override
    public void onLost(Network network) {
      handler.post(() -> target.onLost(network));
    }
  }

  /**
   * Configures a {@link ConnectivityNetworkGate}. Not thread-safe. Defaults: callbacks on the main
   * looper, no reconnect action.
   */
  public static final class Builder {
    private final ConnectivityManager connectivity;
    private Handler handler;
    private Executor reconnectExecutor;
    private Runnable onReconnect;

    private Builder(Context context) {
      connectivity = context.getSystemService(ConnectivityManager.class);
      if (connectivity == null) {
        throw new IllegalStateException("the context has no ConnectivityManager");
      }
    }

    /**
     * Sets the handler system callbacks (and so the actions waiting in {@link #whenOpen}) run on.
     *
     * @throws NullPointerException if {@code handler} is null
     */
    public Builder callbackHandler(Handler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * Runs {@code action} on {@code executor} each time the network comes back after being lost,
     * for example to resume pending intents.
     *
     * @throws NullPointerException if either is null
     */
    public Builder onReconnect(Executor executor, Runnable action) {
      this.reconnectExecutor = Objects.requireNonNull(executor, "executor");
      this.onReconnect = Objects.requireNonNull(action, "action");
      return this;
    }

    /** Registers the callback and returns the gate, open if a default network exists now. */
    public ConnectivityNetworkGate register() {
      if (handler == null) {
        handler = new Handler(Looper.getMainLooper());
      }
      return new ConnectivityNetworkGate(this);
    }
  }
}
