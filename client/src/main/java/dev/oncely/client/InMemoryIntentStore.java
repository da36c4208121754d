package dev.oncely.client;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.function.Consumer;

/**
 * An {@link IntentStore} that keeps records in memory: thread-safe, fast, and gone when the process
 * ends. It gives single-flight and payload checks within one process, but <b>no restart
 * survival</b>: use a durable store from {@code oncely-client-persistence} for that.
 *
 * <p>Writes are serialized on one lock; reads never block. {@link #claimDue} reads an index of
 * unfinished records by {@linkplain DueTime due time}, kept by every write, so a claim costs what
 * it claims, not what the store holds.
 */
public final class InMemoryIntentStore implements IntentStore {
  private static final Comparator<Due> DUE_ORDER = Comparator.comparing(Due::at)
      .thenComparing(d -> d.id().scope()).thenComparing(d -> d.id().operation())
      .thenComparing(d -> d.id().key());

  private final Map<IntentId, IntentRecord> records = new ConcurrentHashMap<>();
  private final Map<BusinessKey, IntentId> byBusinessId = new ConcurrentHashMap<>();
  /** Every record that is due some time ({@link DueTime#of} not null), by that time. */
  private final ConcurrentSkipListSet<Due> byDueTime = new ConcurrentSkipListSet<>(DUE_ORDER);
  private final Object writeLock = new Object();
  private volatile boolean closed;

  private record BusinessKey(String scope, String operation, String businessId) {}

  /** An entry of the due-time index: record {@code id} is due at {@code at}. */
  private record Due(Instant at, IntentId id) {}

  /** Creates an empty store. */
  public InMemoryIntentStore() {}

  @Override
  public void create(IntentRecord record) {
    StoreRules.checkNew(record);
    synchronized (writeLock) {
      checkOpen();
      if (records.containsKey(record.id())) {
        throw new DuplicateIntentException(record.id(), "record " + record.id() + " already exists");
      }
      BusinessKey businessKey = businessKey(record);
      if (businessKey != null && byBusinessId.containsKey(businessKey)) {
        throw new DuplicateIntentException(
            record.id(),
            "business id is already used by record " + byBusinessId.get(businessKey)
                + " in scope '" + businessKey.scope() + "' and operation '"
                + businessKey.operation() + "'");
      }
      records.put(record.id(), record);
      if (businessKey != null) {
        byBusinessId.put(businessKey, record.id());
      }
      indexDueTime(null, record);
    }
  }

  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    StoreRules.checkReplacement(expected, replacement);
    synchronized (writeLock) {
      checkOpen();
      IntentRecord current = records.get(expected.id());
      if (current == null || current.revision() != expected.revision()) {
        return false;
      }
      records.put(replacement.id(), replacement);
      indexDueTime(current, replacement);
      return true;
    }
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    Objects.requireNonNull(id, "id");
    checkOpen();
    return Optional.ofNullable(records.get(id));
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(
      String scope, String operation, String businessId) {
    checkOpen();
    IntentId id = byBusinessId.get(new BusinessKey(
        Objects.requireNonNull(scope, "scope"),
        Objects.requireNonNull(operation, "operation"),
        Objects.requireNonNull(businessId, "businessId")));
    return id == null ? Optional.empty() : Optional.ofNullable(records.get(id));
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    checkOpen();
    List<IntentRecord> unfinished = new ArrayList<>();
    for (IntentRecord r : records.values()) {
      if (!r.state().isTerminal()) {
        unfinished.add(r);
      }
    }
    unfinished.sort(Comparator.comparing(IntentRecord::createdAt));
    return unfinished;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Walks the due-time index from its start and stops at the first entry due after {@code
   * now}, or once {@code limit} records are claimed.
   */
  @Override
  public List<IntentRecord> claimDue(Instant now, int limit) {
    StoreRules.checkClaim(now, limit);
    checkOpen();
    List<IntentRecord> due = new ArrayList<>(Math.min(limit, 64));
    HashSet<IntentId> claimed = new HashSet<>();
    for (Due entry : byDueTime) {
      if (due.size() == limit || entry.at().isAfter(now)) {
        break;
      }
      IntentRecord r = records.get(entry.id());
      // A write racing the claim moves the entry; claim a record only through its current one.
      if (r != null && entry.at().equals(DueTime.of(r)) && claimed.add(r.id())) {
        due.add(r);
      }
    }
    return due;
  }

  @Override
  public void forEachFinished(Consumer<IntentRecord> visitor) {
    Objects.requireNonNull(visitor, "visitor");
    checkOpen();
    for (IntentRecord r : records.values()) {
      if (r.state().isTerminal()) {
        visitor.accept(r);
      }
    }
  }

  @Override
  public int purgeExpired(Instant now) {
    Objects.requireNonNull(now, "now");
    int purged = 0;
    synchronized (writeLock) {
      checkOpen();
      for (IntentRecord r : List.copyOf(records.values())) {
        if (r.state().isTerminal() && !r.expiresAt().isAfter(now)) {
          records.remove(r.id());
          BusinessKey businessKey = businessKey(r);
          if (businessKey != null) {
            byBusinessId.remove(businessKey);
          }
          purged++;
        }
      }
    }
    return purged;
  }

  @Override
  public void close() {
    closed = true;
  }

  private void checkOpen() {
    if (closed) {
      throw new StoreException("the in-memory intent store is closed");
    }
  }

  /** Moves the record's entry in the due-time index from where {@code before} had it. */
  private void indexDueTime(IntentRecord before, IntentRecord after) {
    Instant was = before == null ? null : DueTime.of(before);
    Instant is = DueTime.of(after);
    if (was != null) {
      byDueTime.remove(new Due(was, before.id()));
    }
    if (is != null) {
      byDueTime.add(new Due(is, after.id()));
    }
  }

  private static BusinessKey businessKey(IntentRecord r) {
    return r.businessId() == null
        ? null
        : new BusinessKey(r.id().scope(), r.id().operation(), r.businessId());
  }
}
