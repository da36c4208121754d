package dev.oncely.postgres.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.spi.RecordCodec;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Renews, every third of the lease, the leases this instance holds on intents it is driving, in one
 * statement. A lease that already expired is not renewed: another instance may own the intent now.
 * A failed renewal (database down) is logged and tried again at the next tick.
 */
public final class LeaseKeeper implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(LeaseKeeper.class.getName());

  private final DataSource dataSource;
  private final String owner;
  private final Duration lease;
  private final String table;
  private final Map<IntentId, byte[]> held = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;

  /** Renews {@code owner}'s leases on rows of {@code table} (schema-qualified or not). */
  public LeaseKeeper(DataSource dataSource, String owner, Duration lease, String table) {
    this.dataSource = dataSource;
    this.owner = owner;
    this.lease = lease;
    this.table = table;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "oncely-pg-lease");
      t.setDaemon(true);
      return t;
    });
    long period = Math.max(1, lease.toMillis() / 3);
    timer.scheduleWithFixedDelay(this::renewQuietly, period, period, TimeUnit.MILLISECONDS);
  }

  /** Starts renewing the lease on {@code id}. */
  public void hold(IntentId id) {
    held.put(id, RecordCodec.lookupKey(id));
  }

  /** Stops renewing the lease on {@code id}. */
  public void drop(IntentId id) {
    held.remove(id);
  }

  /** How many leases are being renewed. */
  public int size() {
    return held.size();
  }

  /** Renews every held, unexpired lease now; returns how many rows were renewed. */
  public int renew() throws SQLException {
    if (held.isEmpty()) {
      return 0;
    }
    byte[][] keys = held.values().toArray(new byte[0][]);
    try (Connection c = dataSource.getConnection();
        // SKIP LOCKED: a row an app's transaction holds (a record changed in the caller's
        // transaction) is renewed at a later tick instead of stalling every other renewal until
        // that transaction ends; while the row is locked no one else can change it anyway.
        PreparedStatement st = c.prepareStatement("UPDATE " + table
            + " SET lease_until = clock_timestamp() + make_interval(secs => ?)"
            + " WHERE lookup IN (SELECT lookup FROM " + table + " WHERE lookup = ANY (?)"
            + " AND lease_owner = ? AND lease_until > clock_timestamp()"
            + " FOR UPDATE SKIP LOCKED)")) {
      Array array = c.createArrayOf("bytea", keys);
      st.setDouble(1, lease.toMillis() / 1000.0);
      st.setArray(2, array);
      st.setString(3, owner);
      return st.executeUpdate();
    }
  }

  private void renewQuietly() {
    try {
      renew();
    } catch (SQLException | RuntimeException e) {
      LOG.log(Level.WARNING, "renewing " + held.size() + " leases of " + owner
          + " failed; retrying in a third of the lease", e);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    held.clear();
  }
}
