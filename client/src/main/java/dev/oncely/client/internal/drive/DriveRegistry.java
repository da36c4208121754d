package dev.oncely.client.internal.drive;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentStore;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one owner of every drive in this process: at most one {@link Drive} per intent and store,
 * whatever started it (the intent API, the interceptor, a resume, a due-work scheduler, the Kotlin
 * bridge). A second caller of a driven intent joins the running drive instead of starting one.
 * Stores are told apart by {@linkplain IntentStore#underlying() identity}, so a decorated view
 * (metrics, tracing) and the store it decorates share one set of drives. Across processes the
 * store's compare-and-set (and a fleet store's leases) keep one driver. Thread-safe.
 */
public final class DriveRegistry {
  private static final DriveRegistry PROCESS = new DriveRegistry();

  private final ConcurrentHashMap<Key, Drive> drives = new ConcurrentHashMap<>();

  /** An intent in one store, the store compared by identity. */
  private record Key(StoreIdentity store, IntentId id) {}

  private record StoreIdentity(IntentStore store) {
    @Override
    public boolean equals(Object o) {
      return o instanceof StoreIdentity other && other.store == store;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(store);
    }
  }

  private DriveRegistry() {}

  /** The registry of this process. */
  public static DriveRegistry process() {
    return PROCESS;
  }

  /**
   * How a caller enters: it owns the new {@code drive} ({@code acquired}), or {@code drive} is the
   * running one to join; {@code drive} is null when the owner is closed.
   */
  public record Entry(Drive drive, boolean acquired) {}

  /**
   * Registers a drive of {@code id} on {@code store} for {@code owner}, or returns the one running.
   *
   * @param fingerprint the payload the caller admits, or null for a resume
   */
  public Entry enter(IntentStore store, IntentId id, DriveOwner owner, String fingerprint) {
    Key key = new Key(new StoreIdentity(store.underlying()), id);
    Drive fresh = new Drive(this, key, id, owner, fingerprint);
    Drive running = drives.putIfAbsent(key, fresh);
    if (running != null) {
      return new Entry(running, false);
    }
    if (!owner.adopt(fresh)) {
      drives.remove(key, fresh);
      return new Entry(null, false);
    }
    return new Entry(fresh, true);
  }

  /** Whether a drive of {@code id} on {@code store} is running in this process. */
  public boolean isDriven(IntentStore store, IntentId id) {
    return drives.containsKey(new Key(new StoreIdentity(store.underlying()), id));
  }

  void leave(Object key, Drive drive) {
    drives.remove(key, drive);
  }
}
