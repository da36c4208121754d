package dev.oncely.persistence;

import dev.oncely.client.RecordCache;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/** A small real LRU cache for tests (the JVM default would be Caffeine, not a test dependency). */
final class LruRecordCache<K, V> implements RecordCache<K, V> {
  private final Map<K, V> map;

  LruRecordCache(long maximumSize) {
    this.map = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > maximumSize;
      }
    };
  }

  @Override
  public synchronized V getIfPresent(K key) {
    return map.get(key);
  }

  @Override
  public synchronized V get(K key, Function<? super K, ? extends V> loader) {
    V value = map.get(key);
    if (value == null) {
      value = loader.apply(key);
      if (value != null) {
        map.put(key, value);
      }
    }
    return value;
  }

  @Override
  public synchronized void put(K key, V value) {
    map.put(key, value);
  }

  @Override
  public synchronized void invalidate(K key) {
    map.remove(key);
  }

  @Override
  public synchronized void invalidateAll() {
    map.clear();
  }

  static final class Factory implements RecordCache.Factory {
    @Override
    public <K, V> RecordCache<K, V> create(long maximumSize) {
      return new LruRecordCache<>(maximumSize);
    }
  }
}
