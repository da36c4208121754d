package dev.oncely.postgres;

import dev.oncely.client.DueTime;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreRules;
import dev.oncely.client.spi.BusinessKey;
import dev.oncely.client.spi.Duplicates;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreClosing;
import dev.oncely.client.spi.StoredRows;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.postgres.internal.LeaseKeeper;
import dev.oncely.postgres.internal.MetaRows;
import dev.oncely.postgres.internal.PgErrors;
import dev.oncely.postgres.internal.Schema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A durable {@link IntentStore} in PostgreSQL, shared by every instance of a fleet: a record
 * acknowledged by {@link #create} or {@link #compareAndSet} is committed (with the server's
 * {@code synchronous_commit}), and a read never returns a record that differs from one that was
 * written (the {@link RecordCodec} bytes carry a checksum, optionally AES-GCM encryption). Plain
 * JDBC on any {@link DataSource}: the app pools connections; the store borrows one per call.
 *
 * <p><b>Schema.</b> Table {@code oncely_intent}, created by the versioned scripts under
 * {@code db/oncely/} ({@code V1__oncely_intents.sql}, {@code V2__oncely_meta.sql}, Flyway names),
 * applied by {@link #migrate}
 * or {@link Builder#migrate(boolean)}, in the schema the connections' {@code search_path} names
 * first (normally {@code public}) or in the one {@link Builder#schema(String)} names. Besides the
 * record bytes, each row has SQL-readable columns
 * derived on every write (state, revision, attempts, due time, business id, created, updated,
 * expiry, lease owner and expiry); the key is stored only as its SHA-256 lookup hash. A database
 * constraint keeps a business id unique per scope and operation across the fleet. Table
 * {@code oncely_meta} holds whether records are encrypted and the encryption canary (see
 * {@link dev.oncely.client.spi.KeyCanary}): an instance with a wrong or missing key is refused
 * when it is built, before it writes anything.
 *
 * <p><b>Leases.</b> Each store instance is one {@linkplain #owner() owner}. Writing a record in
 * state {@code NEW} or {@code IN_FLIGHT} (create, the drive's compare-and-set) or claiming it with
 * {@link #claimDue} ({@code SELECT ... FOR UPDATE SKIP LOCKED}) gives the writer a lease for
 * {@link Builder#lease(Duration)}, measured on the database clock and renewed by a background
 * thread while this instance drives the intent; any other state, and {@link #release}, ends it. A
 * compare-and-set succeeds only if the revision still matches (the fencing token) <em>and</em> no
 * other owner holds a live lease, so an instance whose lease expired (pause, partition) can never
 * overwrite the instance that took the intent over. A dead instance's intents become claimable when
 * its leases expire.
 *
 * <p><b>Transactions.</b> {@link #createInTransaction} writes a new intent, and {@link
 * #compareAndSetInTransaction} changes one, through the caller's own connection, inside the
 * caller's transaction; see there. Two stores in two schemas of one database (an app's intents,
 * and an Oncely server's receipts, which must not share a table with them) can both be written in
 * one such transaction.
 *
 * <p>Defaults: owner {@code host/pid/random}, lease 30 s, no encryption, the tables on the
 * connections' search path, schema not migrated.
 * Thread-safe. {@link #close()} stops lease renewal and releases this owner's leases; it does not
 * close the {@link DataSource}.
 */
public final class PostgresIntentStore implements IntentStore {
  /** The default lease an instance holds on an intent it drives. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

  private static final Logger LOG = Logger.getLogger(PostgresIntentStore.class.getName());
  private static final String TERMINAL = "('COMPLETED', 'REJECTED', 'KEY_CONFLICT')";
  private static final String COLUMNS = "lookup, revision, record";

  private final DataSource dataSource;
  private final String name;
  /** The table, schema-qualified when the builder named a schema. */
  private final String table;
  private final String owner;
  private final Duration lease;
  private final double leaseSeconds;
  private final RecordCodec codec;
  private final LeaseKeeper leases;
  private final StoreClosing closing;

  private PostgresIntentStore(Builder b) {
    this.dataSource = b.dataSource;
    this.name = b.name;
    this.table = Schema.qualified(b.schema, "oncely_intent");
    this.owner = b.owner;
    this.lease = b.lease;
    this.leaseSeconds = b.lease.toMillis() / 1000.0;
    this.codec = new RecordCodec(b.encryption);
    this.leases = new LeaseKeeper(dataSource, owner, lease, table);
    this.closing = new StoreClosing(name);
  }

  /**
   * Returns a builder for a store on {@code dataSource}.
   *
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * Applies the missing schema versions ({@code db/oncely/V*.sql}) in one transaction, serialized
   * across instances by an advisory lock, and records them in {@code oncely_schema_version}. Use it
   * or Flyway, not both.
   *
   * @return how many versions were applied (0 when the schema is current)
   * @throws DatabaseUnavailableException if the database cannot be reached
   * @throws StoreException if a script fails; nothing is applied
   */
  public static int migrate(DataSource dataSource) {
    Objects.requireNonNull(dataSource, "dataSource");
    try (Connection c = dataSource.getConnection()) {
      return Schema.migrate(c, null);
    } catch (SQLException e) {
      throw PgErrors.translate(e, "postgres", "migrating the schema");
    }
  }

  /**
   * Applies the missing schema versions as {@link #migrate(DataSource)} does, in the PostgreSQL
   * schema {@code schema} (created if missing), for a store built with {@link
   * Builder#schema(String) schema(schema)}. Each schema keeps its own versions.
   *
   * @return how many versions were applied (0 when the schema is current)
   * @throws IllegalArgumentException if {@code schema} is not a plain lower-case name
   * @throws DatabaseUnavailableException if the database cannot be reached
   * @throws StoreException if a script fails; nothing is applied
   */
  public static int migrate(DataSource dataSource, String schema) {
    Objects.requireNonNull(dataSource, "dataSource");
    Schema.checkName(schema);
    try (Connection c = dataSource.getConnection()) {
      return Schema.migrate(c, schema);
    } catch (SQLException e) {
      throw PgErrors.translate(e, "postgres", "migrating schema " + schema);
    }
  }

  /** The name of this instance in lease columns: unique per store instance. */
  public String owner() {
    return owner;
  }

  /** How long a lease lasts unless renewed. */
  public Duration lease() {
    return lease;
  }

  @Override
  public void create(IntentRecord record) {
    StoreRules.checkNew(record);
    checkOpen();
    byte[] bytes = codec.encode(record);
    run("creating " + record.id(), c -> {
      insert(c, record, bytes);
      return null;
    });
    if (held(record.state())) {
      leases.hold(record.id());
    }
  }

  /**
   * Inserts {@code record} (state {@code NEW}, revision 0; build it with
   * {@code IdempotentClient.newRecord(spec)}) through the caller's {@code connection}, inside the
   * caller's open transaction: it commits or rolls back with the caller's business rows. Nothing
   * is sent. After the commit, drive it with {@code IdempotentClient.resume(record.id())}; if this
   * process dies first, this instance's lease on it expires and any instance's
   * {@code DueWorkScheduler} drives it. After a rollback it never existed. A duplicate is refused
   * with {@code INSERT ... ON CONFLICT DO NOTHING}, so the caller's transaction stays usable.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the record is not {@code NEW} or its revision is not 0
   * @throws dev.oncely.client.DuplicateIntentException if the id, or the business id in the same
   *     scope and operation, is taken; nothing is written
   * @throws StoreException if the statement fails; the caller's transaction is then aborted
   */
  public void createInTransaction(Connection connection, IntentRecord record) {
    Objects.requireNonNull(connection, "connection");
    StoreRules.checkNew(record);
    if (record.state() != IntentState.NEW) {
      throw new IllegalArgumentException("a record written in the caller's transaction must be NEW,"
          + " was " + record.state());
    }
    checkOpen();
    try {
      insert(connection, record, codec.encode(record));
    } catch (SQLException e) {
      throw PgErrors.translate(e, name, "creating " + record.id() + " in the caller's transaction");
    }
  }

  private void insert(Connection c, IntentRecord r, byte[] bytes) throws SQLException {
    byte[] lookup = RecordCodec.lookupKey(r.id());
    try (PreparedStatement st = c.prepareStatement("INSERT INTO " + table + " (lookup, scope,"
        + " operation, business_id, state, revision, attempts, due_at, created_at, updated_at,"
        + " expires_at, lease_owner, lease_until, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        + " ?, CASE WHEN ? THEN clock_timestamp() + make_interval(secs => ?) END, ?)"
        + " ON CONFLICT DO NOTHING")) {
      st.setBytes(1, lookup);
      st.setString(2, r.id().scope());
      st.setString(3, r.id().operation());
      st.setString(4, r.businessId());
      int next = bindDerived(st, 5, r);
      st.setBytes(next, bytes);
      if (st.executeUpdate() == 1) {
        return;
      }
    }
    boolean idTaken;
    try (PreparedStatement st = c.prepareStatement(
        "SELECT 1 FROM " + table + " WHERE lookup = ?")) {
      st.setBytes(1, lookup);
      try (ResultSet rs = st.executeQuery()) {
        idTaken = rs.next();
      }
    }
    boolean businessIdTaken = false;
    if (!idTaken && r.businessId() != null) {
      try (PreparedStatement st = c.prepareStatement("SELECT 1 FROM " + table
          + " WHERE scope = ? AND operation = ? AND business_id = ?")) {
        st.setString(1, r.id().scope());
        st.setString(2, r.id().operation());
        st.setString(3, r.businessId());
        try (ResultSet rs = st.executeQuery()) {
          businessIdTaken = rs.next();
        }
      }
    }
    throw Duplicates.afterConflict(name, r, idTaken, businessIdTaken);
  }

  /**
   * Binds state, revision, attempts, due_at, created_at, updated_at, expires_at, lease_owner and
   * the lease flag and seconds from {@code first} on; returns the next index.
   */
  private int bindDerived(PreparedStatement st, int first, IntentRecord r) throws SQLException {
    boolean held = held(r.state());
    st.setString(first, r.state().name());
    st.setLong(first + 1, r.revision());
    st.setInt(first + 2, r.attempts());
    setTime(st, first + 3, DueTime.of(r));
    setTime(st, first + 4, r.createdAt());
    setTime(st, first + 5, r.updatedAt());
    setTime(st, first + 6, ceilToMicros(r.expiresAt()));
    st.setString(first + 7, held ? owner : null);
    st.setBoolean(first + 8, held);
    st.setDouble(first + 9, leaseSeconds);
    return first + 10;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Refused (false) also when another owner holds a live lease on the record.
   */
  @Override
  public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
    StoreRules.checkReplacement(expected, replacement);
    checkOpen();
    IntentId id = expected.id();
    byte[] bytes = codec.encode(replacement);
    boolean stored;
    try {
      stored = run("replacing " + id, c -> update(c, expected, replacement, bytes));
    } catch (RuntimeException e) {
      leases.drop(id);
      throw e;
    }
    if (stored && held(replacement.state())) {
      leases.hold(id);
    } else {
      leases.drop(id);
    }
    return stored;
  }

  /**
   * The compare-and-set of {@link #compareAndSet}, run through the caller's {@code connection}
   * inside the caller's open transaction: the change commits or rolls back with the caller's
   * business rows. Same rules: the replacement carries the next revision, and it is refused
   * (false) when the stored revision is no longer {@code expected}'s or another owner holds a live
   * lease on the record. Nothing is committed here; the caller commits or rolls back.
   *
   * <p>True means the row was changed in the caller's transaction: others see the replacement once
   * the caller commits; after a rollback the record is {@code expected} again. From the statement
   * to the end of the transaction the row is locked, so another writer of this record (a
   * compare-and-set, a lease renewal) waits for the caller's commit or rollback, then sees its
   * outcome: keep the transaction short. A replacement in state {@code NEW} or {@code IN_FLIGHT}
   * holds this instance's lease, as {@link #compareAndSet} does; the lease this instance already
   * renews on the record is left as it is whatever the outcome, since the caller may still roll
   * back.
   *
   * <p>Under {@code REPEATABLE READ} or {@code SERIALIZABLE} a concurrent change of the same
   * record aborts the caller's transaction ({@link StoreException}, SQLState {@code 40001})
   * instead of returning false.
   *
   * @return whether the record was changed in the caller's transaction
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the ids or business ids differ, or the replacement's
   *     revision is not the next one
   * @throws StoreException if the statement fails; the caller's transaction is then aborted
   */
  public boolean compareAndSetInTransaction(Connection connection, IntentRecord expected,
      IntentRecord replacement) {
    Objects.requireNonNull(connection, "connection");
    StoreRules.checkReplacement(expected, replacement);
    checkOpen();
    IntentId id = expected.id();
    boolean changed;
    try {
      changed = update(connection, expected, replacement, codec.encode(replacement));
    } catch (SQLException e) {
      throw PgErrors.translate(e, name, "replacing " + id + " in the caller's transaction");
    }
    if (changed && held(replacement.state())) {
      leases.hold(id);
    }
    return changed;
  }

  /**
   * The compare-and-set statement: revision and lease checked, derived columns and lease written;
   * returns whether the row was changed.
   */
  private boolean update(Connection c, IntentRecord expected, IntentRecord replacement,
      byte[] bytes) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("UPDATE " + table + " SET state = ?,"
        + " revision = ?, attempts = ?, due_at = ?, created_at = ?, updated_at = ?,"
        + " expires_at = ?, lease_owner = ?, lease_until = CASE WHEN ? THEN clock_timestamp()"
        + " + make_interval(secs => ?) END, record = ? WHERE lookup = ? AND revision = ?"
        + " AND (lease_owner IS NULL OR lease_owner = ? OR lease_until <= clock_timestamp())")) {
      int next = bindDerived(st, 1, replacement);
      st.setBytes(next, bytes);
      st.setBytes(next + 1, RecordCodec.lookupKey(expected.id()));
      st.setLong(next + 2, expected.revision());
      st.setString(next + 3, owner);
      return st.executeUpdate() == 1;
    }
  }

  @Override
  public Optional<IntentRecord> get(IntentId id) {
    Objects.requireNonNull(id, "id");
    checkOpen();
    return Optional.ofNullable(run("reading " + id, c -> {
      try (PreparedStatement st = c.prepareStatement(
          "SELECT " + COLUMNS + " FROM " + table + " WHERE lookup = ?")) {
        st.setBytes(1, RecordCodec.lookupKey(id));
        try (ResultSet rs = st.executeQuery()) {
          return rs.next() ? decodeRow(rs) : null;
        }
      }
    }));
  }

  @Override
  public Optional<IntentRecord> findByBusinessId(
      String scope, String operation, String businessId) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(businessId, "businessId");
    checkOpen();
    return Optional.ofNullable(run("finding a business id in " + scope + "/" + operation, c -> {
      try (PreparedStatement st = c.prepareStatement("SELECT " + COLUMNS + " FROM " + table
          + " WHERE scope = ? AND operation = ? AND business_id = ?")) {
        st.setString(1, scope);
        st.setString(2, operation);
        st.setString(3, businessId);
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            return null;
          }
          return BusinessKey.checkFound(name, decodeRow(rs), scope, operation, businessId);
        }
      }
    }));
  }

  @Override
  public List<IntentRecord> listUnfinished() {
    checkOpen();
    return run("listing unfinished records", c -> {
      try (PreparedStatement st = c.prepareStatement("SELECT " + COLUMNS + " FROM " + table
          + " WHERE state NOT IN " + TERMINAL + " ORDER BY created_at, lookup")) {
        return decodeAll(st);
      }
    });
  }

  /** {@inheritDoc} Streams the finished rows ({@code state} terminal), one decoded at a time. */
  @Override
  public void forEachFinished(Consumer<IntentRecord> visitor) {
    Objects.requireNonNull(visitor, "visitor");
    checkOpen();
    run("listing finished records", c -> {
      try (PreparedStatement st = c.prepareStatement("SELECT " + COLUMNS + " FROM " + table
          + " WHERE state IN " + TERMINAL)) {
        st.setFetchSize(256);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            visitor.accept(decodeRow(rs));
          }
        }
      }
      return null;
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>One statement claims the earliest due records whose lease is free or expired,
   * skipping rows another instance is claiming at the same moment ({@code FOR UPDATE SKIP LOCKED}),
   * and gives this owner a lease on them, renewed until the drive writes a state other than
   * {@code NEW} or {@code IN_FLIGHT}, or {@link #release} is called. Returns them earliest due
   * first.
   */
  @Override
  public List<IntentRecord> claimDue(Instant now, int limit) {
    StoreRules.checkClaim(now, limit);
    checkOpen();
    List<IntentRecord> claimed = run("claiming due records", c -> {
      try (PreparedStatement st = c.prepareStatement("WITH due AS (SELECT lookup FROM " + table
          + " WHERE due_at <= ? AND (lease_until IS NULL OR lease_until <= clock_timestamp())"
          + " ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED)"
          + " UPDATE " + table + " i SET lease_owner = ?,"
          + " lease_until = clock_timestamp() + make_interval(secs => ?)"
          + " FROM due WHERE i.lookup = due.lookup RETURNING i.lookup, i.revision, i.record")) {
        setTime(st, 1, now);
        st.setInt(2, limit);
        st.setString(3, owner);
        st.setDouble(4, leaseSeconds);
        List<IntentRecord> records = new ArrayList<>();
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            try {
              records.add(decodeRow(rs));
            } catch (StoreCorruptedException e) {
              // One damaged row must not hold back the batch; it stays leased until expiry.
              LOG.log(Level.WARNING, "skipping a damaged row in the claim", e);
            }
          }
        }
        return records;
      }
    });
    for (IntentRecord r : claimed) {
      leases.hold(r.id());
    }
    // RETURNING gives the updated rows in no promised order; the claim is earliest due first.
    claimed.sort(Comparator.comparing(DueTime::of,
        Comparator.nullsLast(Comparator.naturalOrder())));
    return claimed;
  }

  @Override
  public void release(IntentId id) {
    Objects.requireNonNull(id, "id");
    leases.drop(id);
    checkOpen();
    run("releasing the lease on " + id, c -> {
      try (PreparedStatement st = c.prepareStatement("UPDATE " + table + " SET lease_owner = NULL,"
          + " lease_until = NULL WHERE lookup = ? AND lease_owner = ?")) {
        st.setBytes(1, RecordCodec.lookupKey(id));
        st.setString(2, owner);
        return st.executeUpdate();
      }
    });
  }

  @Override
  public int purgeExpired(Instant now) {
    Objects.requireNonNull(now, "now");
    checkOpen();
    return run("purging expired records", c -> {
      try (PreparedStatement st = c.prepareStatement("DELETE FROM " + table
          + " WHERE state IN " + TERMINAL + " AND expires_at <= ?")) {
        setTime(st, 1, now);
        return st.executeUpdate();
      }
    });
  }

  /**
   * Stops renewing leases, releases every lease this owner still holds (so on a graceful shutdown
   * other instances take its intents at once instead of after the lease), and refuses further
   * calls. Close the client first, so no drive of this instance is still running. Idempotent.
   *
   * @throws StoreException never: a failed release is logged, and those leases then expire
   */
  @Override
  public void close() {
    closing.close(leases::close, this::releaseAll);
  }

  /** Releases every lease of this owner; a failure is logged, and those leases then expire. */
  private void releaseAll() {
    try {
      run("releasing the leases of " + owner, c -> {
        try (PreparedStatement st = c.prepareStatement("UPDATE " + table
            + " SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?")) {
          st.setString(1, owner);
          return st.executeUpdate();
        }
      });
    } catch (StoreException e) {
      LOG.log(Level.WARNING, "releasing the leases of " + owner + " on close failed; they expire"
          + " within " + lease, e);
    }
  }

  @Override
  public String toString() {
    return "PostgresIntentStore{" + name + ", owner=" + owner
        + (closing.isClosed() ? ", closed}" : "}");
  }

  @FunctionalInterface
  private interface Sql<R> {
    R apply(Connection connection) throws SQLException;
  }

  private <R> R run(String what, Sql<R> body) {
    try (Connection c = dataSource.getConnection()) {
      return body.apply(c);
    } catch (SQLException e) {
      throw PgErrors.translate(e, name, what);
    }
  }

  private void checkOpen() {
    closing.checkOpen();
  }

  private List<IntentRecord> decodeAll(PreparedStatement st) throws SQLException {
    List<IntentRecord> records = new ArrayList<>();
    try (ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        records.add(decodeRow(rs));
      }
    }
    return records;
  }

  private IntentRecord decodeRow(ResultSet rs) throws SQLException {
    byte[] lookup = rs.getBytes(1);
    return StoredRows.checkRevision(name, lookup, rs.getLong(2),
        StoredRows.decode(codec, name, lookup, rs.getBytes(3)));
  }

  private static boolean held(IntentState state) {
    return state == IntentState.NEW || state == IntentState.IN_FLIGHT;
  }

  private static void setTime(PreparedStatement st, int index, Instant t) throws SQLException {
    if (t == null) {
      st.setNull(index, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      st.setObject(index, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
    }
  }

  /** The column keeps microseconds; rounding up never purges a record before its expiry. */
  private static Instant ceilToMicros(Instant t) {
    int nanos = t.getNano() % 1000;
    return nanos == 0 ? t : t.plusNanos(1000 - nanos);
  }

  /** Builds a {@link PostgresIntentStore}. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private String name = "postgres";
    private String owner;
    private Duration lease = DEFAULT_LEASE;
    private StoreEncryption encryption;
    private boolean migrate;
    private String schema;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /** A name for messages and logs (default {@code postgres}); never a URL with a password. */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * The owner name written into lease columns (default {@code host/pid/random}). Must be unique
     * among live instances: two store instances with one owner name share their leases.
     */
    public Builder owner(String owner) {
      if (owner == null || owner.isBlank()) {
        throw new IllegalArgumentException("owner must not be blank");
      }
      this.owner = owner;
      return this;
    }

    /**
     * How long a lease lasts unless renewed (default 30 s): the longest a dead instance's intents
     * wait for another instance. Renewal runs every third of it.
     *
     * @throws IllegalArgumentException if shorter than 300 ms
     */
    public Builder lease(Duration lease) {
      if (lease.toMillis() < 300) {
        throw new IllegalArgumentException("lease must be at least 300 ms, was " + lease);
      }
      this.lease = lease;
      return this;
    }

    /** Encrypts record bytes with AES-GCM (default none); every instance needs the same key. */
    public Builder encryption(StoreEncryption encryption) {
      this.encryption = encryption;
      return this;
    }

    /**
     * The PostgreSQL schema that holds this store's tables (default none: the tables the
     * connections' {@code search_path} finds, normally in {@code public}). Give a store a schema of
     * its own when another store shares the database and must not share its table, such as an
     * Oncely server's receipts beside the app's own intents: both can still be written in one
     * transaction. Apply it with {@link PostgresIntentStore#migrate(DataSource, String)}, this
     * builder's {@link #migrate(boolean)}, or Flyway with {@code schemas} set to it.
     *
     * @throws IllegalArgumentException if {@code schema} is not a plain lower-case name (letters,
     *     digits and underscores, not starting with a digit, at most 63 characters)
     */
    public Builder schema(String schema) {
      this.schema = Schema.checkName(schema);
      return this;
    }

    /** Whether {@link #build()} applies missing schema versions first (default false). */
    public Builder migrate(boolean migrate) {
      this.migrate = migrate;
      return this;
    }

    /**
     * Returns the store after checking (or, with {@link #migrate(boolean)}, applying) the schema
     * and the encryption canary (written by the first instance, checked by every one).
     *
     * @throws DatabaseUnavailableException if the database cannot be reached
     * @throws dev.oncely.client.StoreEncryptionException if the store was written with another
     *     key, or with or without one where this builder's encryption differs
     * @throws StoreException if the schema is missing, or newer than this code
     */
    public PostgresIntentStore build() {
      if (owner == null) {
        owner = defaultOwner();
      }
      if (migrate) {
        if (schema == null) {
          PostgresIntentStore.migrate(dataSource);
        } else {
          PostgresIntentStore.migrate(dataSource, schema);
        }
      }
      try (Connection c = dataSource.getConnection()) {
        Schema.check(c, name, schema);
        MetaRows.checkCanary(c, new KeyCanary(encryption), new RecordCodec(encryption), name,
            schema);
      } catch (SQLException e) {
        throw PgErrors.translate(e, name, "checking the schema");
      }
      return new PostgresIntentStore(this);
    }

    private static String defaultOwner() {
      String host;
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.io.IOException e) {
        host = "unknown-host";
      }
      return host + "/" + ProcessHandle.current().pid() + "/"
          + UUID.randomUUID().toString().substring(0, 8);
    }
  }
}
