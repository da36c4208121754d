package dev.oncely.client;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.function.Function;

/**
 * {@link RecordCache}s backed by Caffeine: the JVM default. Caffeine 3 needs {@code VarHandle}
 * features that Android's runtime lacks, so Android passes its own {@link RecordCache.Factory} to
 * {@link IdempotentClient.Builder#recordCacheFactory} and this class is never loaded there.
 */
public final class CaffeineRecordCacheFactory implements RecordCache.Factory {
  /** Creates the factory. */
  public CaffeineRecordCacheFactory() {}

  @Override
  public <K, V> RecordCache<K, V> create(long maximumSize) {
    if (maximumSize < 0) {
      throw new IllegalArgumentException("maximumSize must be >= 0, was " + maximumSize);
    }
    Cache<K, V> cache = Caffeine.newBuilder().maximumSize(maximumSize).build();
    return new RecordCache<>() {
      @Override
      public V getIfPresent(K key) {
        return cache.getIfPresent(key);
      }

      @Override
      public V get(K key, Function<? super K, ? extends V> loader) {
        return cache.get(key, loader);
      }

      @Override
      public void put(K key, V value) {
        cache.put(key, value);
      }

      @Override
      public void invalidate(K key) {
        cache.invalidate(key);
      }

      @Override
      public void invalidateAll() {
        cache.invalidateAll();
      }
    };
  }
}
