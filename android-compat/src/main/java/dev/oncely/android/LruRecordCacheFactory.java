package dev.oncely.android;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.RecordCache;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Makes {@link RecordCache}s for Android, where Caffeine 3 does not run on ART (it is excluded
 * from this module's classpath): least-recently-used caches bounded both by entry count (the size
 * the client asks for) and by bytes, so a cache of records cannot hold the client's 10,000 entries
 * of up to 1 MiB each. An {@link IntentRecord} weighs its body plus its last response body plus
 * {@value #ENTRY_OVERHEAD_BYTES} bytes; any other value weighs {@value #ENTRY_OVERHEAD_BYTES}.
 * The least recently used entries are evicted until both bounds hold; a single value heavier than
 * the byte bound is not cached. Thread-safe. Default byte bound:
 * {@value #DEFAULT_MAX_BYTES_PER_CACHE} per cache.
 *
 * <p>{@link RecordCache#get(Object, Function) get} with a loader is not atomic: two threads missing
 * the same key may both run the loader, and the last value loaded stays cached. That is harmless
 * here because a cache is never a source of truth: every value was read from the store.
 */
public final class LruRecordCacheFactory implements RecordCache.Factory {
  /** The default byte bound of each cache: 4 MiB. */
  public static final long DEFAULT_MAX_BYTES_PER_CACHE = 4L * 1024 * 1024;
  /** What an entry weighs beyond its bodies: the record's other fields and the map entry. */
  public static final int ENTRY_OVERHEAD_BYTES = 512;

  private final long maxBytesPerCache;

  /** Creates the factory with {@link #DEFAULT_MAX_BYTES_PER_CACHE}. */
  public LruRecordCacheFactory() {
    this(DEFAULT_MAX_BYTES_PER_CACHE);
  }

  /**
   * Creates the factory with a byte bound per cache.
   *
   * @throws IllegalArgumentException if {@code maxBytesPerCache} is negative
   */
  public LruRecordCacheFactory(long maxBytesPerCache) {
    if (maxBytesPerCache < 0) {
      throw new IllegalArgumentException(
          "maxBytesPerCache must be >= 0, was " + maxBytesPerCache);
    }
    this.maxBytesPerCache = maxBytesPerCache;
  }

  /**
   * {@inheritDoc}
   *
   * <p>A size of 0, or a byte bound of 0, makes a cache that keeps nothing.
   *
   * @throws IllegalArgumentException if {@code maximumSize} is negative
   */
  @Override
  public <K, V> RecordCache<K, V> create(long maximumSize) {
    if (maximumSize < 0) {
      throw new IllegalArgumentException("maximumSize must be >= 0, was " + maximumSize);
    }
    if (maximumSize == 0 || maxBytesPerCache == 0) {
      return new NoCache<>();
    }
    return new LruRecordCache<>(maximumSize, maxBytesPerCache);
  }

  /** What {@code value} weighs in a cache, in bytes. */
  static long weigh(Object value) {
    long weight = ENTRY_OVERHEAD_BYTES;
    if (value instanceof IntentRecord record) {
      weight += record.bodyLength();
      if (record.lastResponse() != null) {
        weight += record.lastResponse().bodyLength();
      }
    }
    return weight;
  }

  private static final class LruRecordCache<K, V> implements RecordCache<K, V> {
    private final long maximumSize;
    private final long maxBytes;
    private final LinkedHashMap<K, V> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;

    LruRecordCache(long maximumSize, long maxBytes) {
      this.maximumSize = maximumSize;
      this.maxBytes = maxBytes;
    }

    @Override
    public synchronized V getIfPresent(K key) {
      return entries.get(Objects.requireNonNull(key, "key"));
    }

    @Override
    public V get(K key, Function<? super K, ? extends V> loader) {
      Objects.requireNonNull(loader, "loader");
      V value = getIfPresent(key);
      if (value == null) {
        value = loader.apply(key);
        if (value != null) {
          put(key, value);
        }
      }
      return value;
    }

    @Override
    public synchronized void put(K key, V value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      remove(key);
      long weight = weigh(value);
      if (weight > maxBytes) {
        return;
      }
      entries.put(key, value);
      bytes += weight;
      Iterator<Map.Entry<K, V>> eldest = entries.entrySet().iterator();
      while (entries.size() > maximumSize || bytes > maxBytes) {
        bytes -= weigh(eldest.next().getValue());
        eldest.remove();
      }
    }

    @Override
    public synchronized void invalidate(K key) {
      remove(Objects.requireNonNull(key, "key"));
    }

    @Override
    public synchronized void invalidateAll() {
      entries.clear();
      bytes = 0;
    }

    private void remove(K key) {
      V old = entries.remove(key);
      if (old != null) {
        bytes -= weigh(old);
      }
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
