package dev.oncely.client.internal.http;

import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store of an interceptor built without one: a record lives as long as the call that created
 * it, and is {@linkplain #forget forgotten} when that call returns, so the interceptor holds only
 * the intents on the wire, and the engine runs the same session over it as over a real store
 * (one drive per key at a time, the same admission, the same compare-and-set). Nothing survives a
 * restart, which is what an app that gave no store asked for. Thread-safe.
 */
public final class CallScopedStore implements IntentStore {
  private final ConcurrentHashMap<IntentId, IntentRecord> records = new ConcurrentHashMap<>();

  @Override
  public void create(IntentRecord record) {
    StoreRules.checkNew(record);
    if (record.businessId() == null) {
      // The common case takes no lock: the map's own put-if-absent is the unique constraint.
      if (records.putIfAbsent(record.id(), record) != null) {
        throw new DuplicateIntentException(record.id(), "record " + record.id()
            + " already exists");
      }
      return;
    }
    synchronized (records) {
      if (findByBusinessId(record.id().scope(), record.id().operation(), record.businessId())
          .isPresent()) {
        throw new DuplicateIntentException(record.id(), "the business id is used by a call on"
            + " the wire");
      }
      if (records.putIfAbsent(record.id(), record) != null) {
        throw new DuplicateIntentException(record.id(), "record " + record.id()
            + " already exists");
      }
    }
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    StoreRules.checkReplacement(expected, replacement);
    IntentRecord current = records.get(expected.id());
    if (current == null || current.revision() != expected.revision()) {
      return false;
    }
    // Replaced only if the map still holds that very version: a revision written meanwhile wins.
    return records.replace(expected.id(), current, replacement);
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    return Optional.ofNullable(records.get(id));
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(String scope, String operation,
      String businessId) {
    for (IntentRecord record : records.values()) {
      if (businessId.equals(record.businessId()) && record.id().scope().equals(scope)
          && record.id().operation().equals(operation)) {
        return Optional.of(record);
      }
    }
    return Optional.empty();
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    List<IntentRecord> unfinished = new ArrayList<>();
    for (IntentRecord record : records.values()) {
      if (!record.state().isTerminal()) {
        unfinished.add(record);
      }
    }
    return unfinished;
  }

  @Override
  public int purgeExpired(Instant now) {
    return 0;
  }

  /** Forgets the record of {@code id}: the call that created it has returned. */
  public void forget(IntentId id) {
    records.remove(Objects.requireNonNull(id, "id"));
  }

  @Override
  public void close() {
    records.clear();
  }
}
