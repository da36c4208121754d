package dev.oncely.testing;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The server's idempotency store: one {@link KeyRecord} per (scope, key), the keys it forgot
 * (lost, expired or wiped), and how many requests each key brought. A record is found by its id,
 * the scope and the key joined by {@code U+0000}.
 *
 * <p>Not thread-safe on its own: the methods that say so take the server's {@link ServerLock};
 * the others are called with it held, so that a request's whole reserve-and-commit step is atomic.
 */
final class KeyStore {
  private final ServerConfig config;
  private final ServerLock lock;
  private final Map<String, Integer> requestsOfKey = new HashMap<>();
  private final Map<String, KeyRecord> records = new HashMap<>();
  private final Set<String> forgotten = new HashSet<>();

  KeyStore(ServerConfig config, ServerLock lock) {
    this.config = config;
    this.lock = lock;
  }

  /**
   * The key {@code r} carries, read by the server's quoting rule, or null when it carries none.
   *
   * @throws Keys.MalformedKeyException if the key header is there but unusable
   */
  @Nullable String keyOf(ReceivedRequest r) throws Keys.MalformedKeyException {
    return Keys.read(config.keyHeader, r.headerValues(config.keyHeader), config.keyQuoting,
        config.maxKeyLength);
  }

  /** The key {@code r} carries, or null when it carries none or a malformed one. */
  @Nullable String keyOrNull(ReceivedRequest r) {
    try {
      return keyOf(r);
    } catch (Keys.MalformedKeyException e) {
      return null;
    }
  }

  /** The id of {@code key}'s record in the scope of {@code r}. */
  String idOf(ReceivedRequest r, String key) {
    return idOf(scope(r), key);
  }

  private static String idOf(String scope, String key) {
    return scope + '\u0000' + key;
  }

  private String scope(ReceivedRequest r) {
    if (config.scopeHeader == null) {
      return "";
    }
    String s = r.header(config.scopeHeader);
    return s == null ? "" : s.trim();
  }

  /**
   * Counts one more request carrying {@code rawKey} (the header value as sent) in the scope of
   * {@code r} and returns the count, from 1. Takes the lock.
   */
  int countRequest(ReceivedRequest r, String rawKey) {
    lock.lock();
    try {
      return requestsOfKey.merge(idOf(r, rawKey), 1, Integer::sum);
    } finally {
      lock.unlock();
    }
  }

  /** The record {@code id}, or null. */
  @Nullable KeyRecord get(String id) {
    return records.get(id);
  }

  /** Creates the record {@code id}, in progress, dated now by the server's clock. */
  KeyRecord reserve(String id, String fingerprint) {
    KeyRecord rec = new KeyRecord(fingerprint, config.clock.instant());
    records.put(id, rec);
    return rec;
  }

  /** Drops the record {@code id} so its key is handled as new (not counted as forgotten). */
  void release(String id) {
    records.remove(id);
  }

  /** Forgets the record {@code id} if it outlived the retention. */
  void expire(String id) {
    KeyRecord rec = records.get(id);
    if (rec != null && config.retention != null
        && !config.clock.instant().isBefore(rec.createdAt.plus(config.retention))) {
      records.remove(id);
      forgotten.add(id);
    }
  }

  /** Forgets the record {@code id}, if there is one, as a server that lost it. */
  void lose(String id) {
    if (records.remove(id) != null) {
      forgotten.add(id);
    }
  }

  /** Whether the server once had a record {@code id} and forgot it. */
  boolean forgot(String id) {
    return forgotten.contains(id);
  }

  /** Forgets every record, as a wiped store. Takes the lock. */
  void forgetAll() {
    lock.lock();
    try {
      forgotten.addAll(records.keySet());
      records.clear();
    } finally {
      lock.unlock();
    }
  }

  /** The stored answer's body for {@code key} in {@code scope}, as UTF-8. Takes the lock. */
  Optional<String> storedBody(String scope, String key) {
    lock.lock();
    try {
      KeyRecord rec = records.get(idOf(scope, key));
      return rec == null || rec.stored == null ? Optional.empty()
          : Optional.of(new String(rec.stored.body(), StandardCharsets.UTF_8));
    } finally {
      lock.unlock();
    }
  }

  /** The operation of the key {@code r} carries, or null. Takes the lock. */
  Operations.@Nullable Operation operationOf(ReceivedRequest r) {
    String key;
    try {
      key = keyOf(r);
    } catch (Keys.MalformedKeyException e) {
      return null;
    }
    lock.lock();
    try {
      KeyRecord rec = key == null ? null : records.get(idOf(r, key));
      return rec == null ? null : rec.operation;
    } finally {
      lock.unlock();
    }
  }
}
