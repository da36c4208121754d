package dev.oncely.cli;

import dev.oncely.client.IntentId;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.postgres.PostgresIntentStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The PostgreSQL store as the CLI opens it: every {@code IntentStore} call goes to the
 * {@link PostgresIntentStore}; the one read the SPI lacks, the live lease of another instance,
 * reads the table's lease columns directly.
 */
final class CliPostgresStore extends ForwardingIntentStore implements LeaseView {
  private final DataSource dataSource;
  private final String name;
  private final String owner;

  CliPostgresStore(PostgresIntentStore store, DataSource dataSource, String name) {
    super(store);
    this.dataSource = dataSource;
    this.name = name;
    this.owner = store.owner();
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
}
