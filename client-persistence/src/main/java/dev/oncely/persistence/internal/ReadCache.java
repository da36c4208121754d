package dev.oncely.persistence.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.RecordCache;
import java.util.List;
import java.util.function.Function;

/**
 * The optional read cache in front of a durable store, kept from ever becoming a second source of
 * truth: writes enter it only after their commit returned (the caller leading the group commit
 * calls {@link #committed} before acknowledging anyone), and a value loaded from disk is cached
 * only if no commit happened while it was being read, so a slow reader cannot put back a revision
 * older than one a writer just cached. Compare-and-set never consults it. Thread-safe.
 */
public final class ReadCache {
  private final RecordCache<IntentId, IntentRecord> cache;
  private final Object lock = new Object();
  private volatile long commits;

  /** A cache of {@code size} made by {@code factory}, or a pass-through when it is null. */
  public ReadCache(RecordCache.Factory factory, long size) {
    this.cache = factory == null ? null : factory.create(size);
  }

  /** Returns the cached record or the one {@code load} reads from disk (null: absent). */
  public IntentRecord get(IntentId id, Function<IntentId, IntentRecord> load) {
    if (cache == null) {
      return load.apply(id);
    }
    IntentRecord hit = cache.getIfPresent(id);
    if (hit != null) {
      return hit;
    }
    long seen = commits;
    IntentRecord loaded = load.apply(id);
    if (loaded != null) {
      synchronized (lock) {
        if (commits == seen) {
          cache.put(id, loaded);
        }
      }
    }
    return loaded;
  }

  /** Records that a commit made {@code records} durable, in commit order. */
  public void committed(List<IntentRecord> records) {
    if (cache == null) {
      return;
    }
    synchronized (lock) {
      commits++;
      for (IntentRecord r : records) {
        cache.put(r.id(), r);
      }
    }
  }

  /** Forgets everything: after deletes, or a commit whose outcome is unknown. */
  public void invalidateAll() {
    if (cache == null) {
      return;
    }
    synchronized (lock) {
      commits++;
      cache.invalidateAll();
    }
  }
}
