package dev.oncely.cli.internal;

import dev.oncely.cli.FinishedRecordSearch;
import dev.oncely.cli.LeaseView;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.postgres.PostgresIntentStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The PostgreSQL store as the CLI opens it: every {@code IntentStore} call goes to the
 * {@link PostgresIntentStore}; the two read-only searches the SPI lacks (finished records by key
 * hash or business id, the live lease of another instance) read the table's columns directly.
 * Matches are re-read through the store, so they are verified like any other read.
 */
final class CliPostgresStore extends ForwardingIntentStore implements FinishedRecordSearch, LeaseView {
  private static final String TERMINAL = "('COMPLETED', 'REJECTED', 'KEY_CONFLICT')";
  private static final int FETCH_ROWS = 256;

  private final DataSource dataSource;
  private final String name;
  private final String owner;
  private final RecordCodec codec;

  CliPostgresStore(PostgresIntentStore store, DataSource dataSource, String name, RecordCodec codec) {
    super(store);
    this.dataSource = dataSource;
    this.name = name;
    this.owner = store.owner();
    this.codec = codec;
  }

  @Override
  public List<IntentId> finishedByKeyHash(String hexDigits, String scope, String operation) {
    String prefix = "k#" + hexDigits;
    String sql = "SELECT record FROM oncely_intent WHERE state IN " + TERMINAL
        + (scope == null ? "" : " AND scope = ? AND operation = ?");
    return scan(sql, scope, operation, r -> r.id().safeKey().startsWith(prefix));
  }

  @Override
  public List<IntentId> finishedByBusinessId(String businessId) {
    String sql = "SELECT record FROM oncely_intent WHERE state IN " + TERMINAL
        + " AND business_id = ?";
    return scan(sql, businessId, null, r -> businessId.equals(r.businessId()));
  }

  @Override
  public Optional<String> liveLeaseOfAnother(IntentId id) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement st = c.prepareStatement("SELECT lease_owner, lease_until"
            + " FROM oncely_intent WHERE lookup = ? AND lease_owner IS NOT NULL"
            + " AND lease_owner <> ? AND lease_until > clock_timestamp()")) {
      st.setBytes(1, RecordCodec.lookupKey(id));
      st.setString(2, owner);
      try (ResultSet rs = st.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(rs.getString(1) + " (lease until "
            + rs.getObject(2, OffsetDateTime.class).toInstant() + ")");
      }
    } catch (SQLException e) {
      throw PostgresStoreOpener.PgFailures.translate(e, name, null, "reading the lease of " + id);
    }
  }

  private List<IntentId> scan(String sql, String first, String second,
      java.util.function.Predicate<IntentRecord> keep) {
    List<IntentId> ids = new ArrayList<>();
    try (Connection c = dataSource.getConnection()) {
      // The driver streams rows with a fetch size only inside a transaction.
      c.setAutoCommit(false);
      c.setReadOnly(true);
      try (PreparedStatement st = c.prepareStatement(sql)) {
        st.setFetchSize(FETCH_ROWS);
        if (first != null) {
          st.setString(1, first);
        }
        if (second != null) {
          st.setString(2, second);
        }
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            IntentRecord r = codec.decode(rs.getBytes(1), name + ": a finished record");
            if (keep.test(r)) {
              ids.add(r.id());
            }
          }
        }
      } finally {
        c.rollback();
      }
    } catch (SQLException e) {
      throw PostgresStoreOpener.PgFailures.translate(e, name, null, "searching finished records");
    }
    return ids;
  }
}
