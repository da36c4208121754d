package dev.oncely.client;

import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A bounded cache of hot values, never a source of truth: every value in it was read from or written
 * to a store first. It exists so the JVM can use Caffeine while Android (where Caffeine 3 does not
 * run on ART) plugs in {@code android.util.LruCache} or a plain map. Implementations are
 * thread-safe.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface RecordCache<K, V> {

  /** Returns the cached value for {@code key}, or null. */
  @Nullable V getIfPresent(K key);

  /** Returns the cached value, loading and caching it with {@code loader} when absent (null: not cached). */
  @Nullable V get(K key, Function<? super K, ? extends @Nullable V> loader);

  /** Caches {@code value} under {@code key}, evicting something if full. */
  void put(K key, V value);

  /** Removes {@code key}. */
  void invalidate(K key);

  /** Removes everything. */
  void invalidateAll();

  /**
   * Makes {@link RecordCache}s of a chosen maximum size; the seam where platforms choose the
   * implementation.
   */
  interface Factory {
    /**
     * Returns a new cache holding at most {@code maximumSize} entries.
     *
     * @throws IllegalArgumentException if {@code maximumSize} is negative
     */
    <K, V> RecordCache<K, V> create(long maximumSize);
  }
}
