package dev.oncely.postgres.internal;

import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.client.spi.RecordCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The encryption check of a PostgreSQL store, on table {@code oncely_meta} (schema version 2):
 * the {@link KeyCanary} rows are written by the first instance that opens the schema and checked
 * by every instance before it writes. A schema that already holds records but no canary (created
 * before version 2) gets one only after one of its records decoded with this instance's setting,
 * so the first instance after an upgrade cannot pin a wrong key on the fleet.
 */
public final class MetaRows {
  private MetaRows() {}

  /**
   * Writes the canary rows if missing, then checks them against {@code canary}.
   *
   * @throws dev.oncely.client.StoreEncryptionException if the store was written with another key,
   *     or with or without one where {@code canary}'s setting differs
   * @throws StoreCorruptedException if the rows are damaged
   */
  public static void checkCanary(Connection c, KeyCanary canary, RecordCodec codec, String name,
      String schema) throws SQLException {
    String meta = Schema.qualified(schema, "oncely_meta");
    // Both rows are read by one statement, so in one snapshot: a neighbour's insert writes them
    // together, and two reads could see one row missing and the other present.
    byte[][] rows = read(c, meta);
    if (rows[0] == null && rows[1] == null) {
      adoptExistingRecords(c, codec, name, Schema.qualified(schema, "oncely_intent"));
      try (PreparedStatement st = c.prepareStatement("INSERT INTO " + meta + " (name, value)"
          + " VALUES ('encrypted', ?), ('canary', ?) ON CONFLICT DO NOTHING")) {
        st.setBytes(1, new byte[] {(byte) (canary.encrypts() ? 1 : 0)});
        st.setBytes(2, canary.bytes());
        st.executeUpdate();
      }
      // Another instance may have won the insert with its own setting: check what was kept.
      rows = read(c, meta);
    }
    byte[] encrypted = rows[0];
    byte[] stored = rows[1];
    if (encrypted == null || encrypted.length != 1) {
      throw new StoreCorruptedException(name + ": the store's metadata rows are missing or damaged");
    }
    canary.checkSetting(encrypted[0] == 1, name);
    canary.check(stored, name);
  }

  /** Decodes one existing record with {@code codec}, if there is any. */
  private static void adoptExistingRecords(Connection c, RecordCodec codec, String name,
      String table) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT record FROM " + table + " LIMIT 1");
        ResultSet rs = st.executeQuery()) {
      if (rs.next()) {
        codec.decode(rs.getBytes(1), name + ": an existing record");
      }
    }
  }

  /** The values of rows {@code encrypted} and {@code canary}, each null if missing. */
  private static byte[][] read(Connection c, String meta) throws SQLException {
    byte[][] rows = new byte[2][];
    try (PreparedStatement st = c.prepareStatement(
        "SELECT name, value FROM " + meta + " WHERE name IN ('encrypted', 'canary')");
        ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        rows["encrypted".equals(rs.getString(1)) ? 0 : 1] = rs.getBytes(2);
      }
    }
    return rows;
  }
}
