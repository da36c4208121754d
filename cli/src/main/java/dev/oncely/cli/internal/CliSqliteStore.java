package dev.oncely.cli.internal;

import dev.oncely.cli.FinishedRecordSearch;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.IntentStore;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.sqlite.SQLiteConfig;

/**
 * A SQLite store as the CLI opens it: every {@code IntentStore} call goes to the store; the search
 * for finished records reads the file's {@code intent} table over a read-only connection of its
 * own (rows outside the unfinished index), while the store, and so its owner lock, stays open.
 * Matches are re-read through the store, so they are verified like any other read.
 */
final class CliSqliteStore extends ForwardingIntentStore implements FinishedRecordSearch {
  private final Path file;
  private final RecordCodec codec;

  CliSqliteStore(IntentStore store, Path file, RecordCodec codec) {
    super(store);
    this.file = file;
    this.codec = codec;
  }

  @Override
  public List<IntentId> finishedByKeyHash(String hexDigits, String scope, String operation) {
    String prefix = "k#" + hexDigits;
    return scan(r -> r.id().safeKey().startsWith(prefix)
        && (scope == null || (r.id().scope().equals(scope) && r.id().operation().equals(operation))));
  }

  @Override
  public List<IntentId> finishedByBusinessId(String businessId) {
    return scan(r -> businessId.equals(r.businessId()));
  }

  private List<IntentId> scan(Predicate<IntentRecord> keep) {
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    List<IntentId> ids = new ArrayList<>();
    try (Connection c = config.createConnection("jdbc:sqlite:" + file);
        PreparedStatement st = c.prepareStatement("SELECT record FROM intent WHERE open_s IS NULL");
        ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        IntentRecord r = codec.decode(rs.getBytes(1), file + ": a finished record");
        if (r.state().isTerminal() && keep.test(r)) {
          ids.add(r.id());
        }
      }
    } catch (SQLException e) {
      throw new StoreException(file + ": searching finished records failed: " + e.getMessage(), e);
    }
    return ids;
  }
}
