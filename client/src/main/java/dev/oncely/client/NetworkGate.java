package dev.oncely.client;

/**
 * Tells the executor whether the network is usable, so retries pause while a device is offline
 * instead of burning attempts and the retry budget. The JVM default is {@link #ALWAYS_OPEN};
 * Android plugs in a gate driven by {@code ConnectivityManager.NetworkCallback}.
 *
 * <p>Implementations are thread-safe, fast and never throw.
 */
public interface NetworkGate {
  /** A gate that is always open: the network is assumed usable. */
  NetworkGate ALWAYS_OPEN = new NetworkGate() {
    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void whenOpen(Runnable action) {
      action.run();
    }
  };

  /** Whether attempts may be sent now. */
  boolean isOpen();

  /**
   * Runs {@code action} once, as soon as the gate is open: at once (on the calling thread) if it is
   * open now, else on the thread that opens it. Must not block.
   */
  void whenOpen(Runnable action);
}
