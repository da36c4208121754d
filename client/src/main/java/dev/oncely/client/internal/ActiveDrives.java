package dev.oncely.client.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentStore;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The intents being driven in this process, per store instance, across every client, interceptor
 * and scheduler: the in-process half of "one driver per intent". A record created by one entry
 * point is owned by that create (no compare-and-set before its first attempt), so a due-work
 * scheduler or a resume of the other entry point on the same store must not drive it meanwhile;
 * across processes the store's compare-and-set (and a fleet store's leases) keep one owner.
 * Stores are told apart by identity; entries go when their store is garbage. Thread-safe.
 */
final class ActiveDrives {
  private static final Map<IntentStore, Set<IntentId>> BY_STORE =
      Collections.synchronizedMap(new WeakHashMap<>());

  private ActiveDrives() {}

  /** Marks {@code id} driven on {@code store}; false if a drive in this process already is. */
  static boolean enter(IntentStore store, IntentId id) {
    synchronized (BY_STORE) {
      return BY_STORE.computeIfAbsent(store, s -> new HashSet<>()).add(id);
    }
  }

  /** Ends the mark {@link #enter} set. */
  static void leave(IntentStore store, IntentId id) {
    synchronized (BY_STORE) {
      Set<IntentId> ids = BY_STORE.get(store);
      if (ids != null) {
        ids.remove(id);
      }
    }
  }
}
