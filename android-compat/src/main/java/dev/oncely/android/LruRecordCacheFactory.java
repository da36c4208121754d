package dev.oncely.android;

import android.util.LruCache;
import dev.oncely.client.spi.RecordCache;
import java.util.Objects;
import java.util.function.Function;

/**
 * Makes {@link RecordCache}s on {@link android.util.LruCache}, the Android replacement for the
 * JVM's Caffeine caches (Caffeine 3 does not run on ART and is excluded from this module's
 * classpath). Each cache holds at most {@code maximumSize} entries and evicts the least recently
 * used one first. Thread-safe.
 *
 * <p>{@link RecordCache#get(Object, Function) get} with a loader is not atomic: two threads missing
 * the same key may both run the loader, and the last value loaded stays cached. That is harmless
 * here because a cache is never a source of truth: every value was read from the store.
 */
public final class LruRecordCacheFactory implements RecordCache.Factory {

  /** Creates the factory. */
  public LruRecordCacheFactory() {}

  /**
   * {@inheritDoc}
   *
   * <p>A size of 0 makes a cache that keeps nothing; sizes above {@link Integer#MAX_VALUE} are
   * capped to it.
   *
   * @throws IllegalArgumentException if {@code maximumSize} is negative
   */
  @Override
  public <K, V> RecordCache<K, V> create(long maximumSize) {
    if (maximumSize < 0) {
      throw new IllegalArgumentException("maximumSize must be >= 0, was " + maximumSize);
    }
    if (maximumSize == 0) {
      return new NoCache<>();
    }
    return new LruRecordCache<>((int) Math.min(maximumSize, Integer.MAX_VALUE));
  }

  private static final class LruRecordCache<K, V> implements RecordCache<K, V> {
    private final LruCache<K, V> cache;

    LruRecordCache(int maximumSize) {
      cache = new LruCache<>(maximumSize);
    }

    @Override
    public V getIfPresent(K key) {
      return cache.get(Objects.requireNonNull(key, "key"));
    }

    @Override
    public V get(K key, Function<? super K, ? extends V> loader) {
      Objects.requireNonNull(loader, "loader");
      V value = getIfPresent(key);
      if (value == null) {
        value = loader.apply(key);
        if (value != null) {
          cache.put(key, value);
        }
      }
      return value;
    }

    @Override
    public void put(K key, V value) {
      cache.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    @Override
    public void invalidate(K key) {
      cache.remove(Objects.requireNonNull(key, "key"));
    }

    @Override
    public void invalidateAll() {
      cache.evictAll();
    }
  }

  private static final class NoCache<K, V> implements RecordCache<K, V> {
    @Override
    public V getIfPresent(K key) {
      return null;
    }

    @Override
    public V get(K key, Function<? super K, ? extends V> loader) {
      return loader.apply(key);
    }

    @Override
    public void put(K key, V value) {}

    @Override
    public void invalidate(K key) {}

    @Override
    public void invalidateAll() {}
  }
}
