package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static dev.oncely.client.spi.IntentStoreContract.newRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.UnfinishedEntry;
import dev.oncely.client.spi.StoreEncryption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SQLite-specific promises beyond the store contract: indexes, space reclaim, encryption. */
class SqliteIntentStoreTest {
  private static final byte[] KEY_A = new byte[StoreEncryption.KEY_BYTES];
  private static final byte[] KEY_B = filled((byte) 7);

  @TempDir Path dir;

  @Test
  void list_unfinished_and_purge_read_their_partial_indexes_not_the_whole_table() throws Exception {
    Path file = dir.resolve("intents.db");
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      store.create(newRecord("s", "op", "k"));
      assertThat(queryPlan(file, "SELECT lookup, record FROM intent"
          + " WHERE open_s IS NOT NULL ORDER BY open_s, open_ns"))
          .contains("intent_unfinished").doesNotContain("SCAN intent ");
      assertThat(queryPlan(file, "DELETE FROM intent WHERE purge_s IS NOT NULL"
          + " AND (purge_s < 1 OR (purge_s = 1 AND purge_ns <= 1))"))
          .contains("intent_expiry");
    }
  }

  @Test
  void listing_ids_reads_the_stub_column_and_falls_back_to_the_record_for_old_rows()
      throws Exception {
    Path file = dir.resolve("intents.db");
    IntentRecord a = newRecord("s", "op", "a");
    IntentRecord b = newRecord("s", "op", "b").toBuilder()
        .createdAt(a.createdAt().plusSeconds(1)).build();
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      store.create(a);
      store.create(b);
    }
    assertThat(queryPlan(file, "SELECT lookup, stub"
        + " FROM intent WHERE open_s IS NOT NULL ORDER BY open_s, open_ns"))
        .contains("USING COVERING INDEX intent_unfinished_ids").doesNotContain("TEMP B-TREE");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE intent SET stub = NULL WHERE open_s = "
          + a.createdAt().getEpochSecond() + " AND open_ns = " + a.createdAt().getNano());
    }
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThat(store.listUnfinishedIds()).containsExactly(
          UnfinishedEntry.of(a), UnfinishedEntry.of(b));
    }
  }

  /**
   * A file written by the schema without the {@code stub} column and the covering index: open
   * adds the column and replaces the index, old rows are listed from their records, new writes
   * carry stubs, and the listing then reads the covering index only.
   */
  @Test
  void a_store_written_by_the_old_schema_opens_lists_and_gets_the_covering_index()
      throws Exception {
    Path file = dir.resolve("intents.db");
    IntentRecord a = newRecord("s", "op", "a");
    IntentRecord done = newRecord("s", "op", "done").toBuilder()
        .createdAt(a.createdAt().plusSeconds(1)).build();
    IntentRecord b = newRecord("s", "op", "b").toBuilder()
        .createdAt(a.createdAt().plusSeconds(2)).build();
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      store.create(a);
      store.create(done);
      store.create(b);
      assertThat(store.compareAndSet(done, done.successor().state(IntentState.COMPLETED)
          .attempts(1).build())).isTrue();
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.execute("DROP INDEX intent_unfinished_ids");
      st.execute("ALTER TABLE intent DROP COLUMN stub");
      st.execute("CREATE INDEX intent_unfinished ON intent(open_s, open_ns)"
          + " WHERE open_s IS NOT NULL");
    }
    assertThat(schemaNames(file)).contains("intent_unfinished")
        .doesNotContain("intent_unfinished_ids");
    IntentRecord c = newRecord("s", "op", "c").toBuilder()
        .createdAt(a.createdAt().plusSeconds(3)).build();
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThat(store.listUnfinishedIds()).containsExactly(
          UnfinishedEntry.of(a), UnfinishedEntry.of(b));
      store.create(c);
      assertThat(store.listUnfinishedIds()).containsExactly(
          UnfinishedEntry.of(a), UnfinishedEntry.of(b), UnfinishedEntry.of(c));
      assertThat(store.listUnfinished()).extracting(IntentRecord::id)
          .containsExactly(a.id(), b.id(), c.id());
    }
    assertThat(schemaNames(file)).contains("intent_unfinished_ids")
        .doesNotContain("intent_unfinished");
    assertThat(queryPlan(file, "SELECT lookup, stub"
        + " FROM intent WHERE open_s IS NOT NULL ORDER BY open_s, open_ns"))
        .contains("USING COVERING INDEX intent_unfinished_ids");
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThat(store.listUnfinishedIds()).containsExactly(
          UnfinishedEntry.of(a), UnfinishedEntry.of(b), UnfinishedEntry.of(c));
    }
  }

  @Test
  void claiming_due_records_walks_the_due_index_in_order_without_sorting() throws Exception {
    Path file = dir.resolve("intents.db");
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      store.create(newRecord("s", "op", "k"));
      assertThat(queryPlan(file, "SELECT lookup, due_s, due_ns, record FROM intent"
          + " WHERE due_s IS NOT NULL AND due_s <= 1 ORDER BY due_s, due_ns"))
          .contains("USING INDEX intent_due").doesNotContain("TEMP B-TREE")
          .doesNotContain("SCAN intent ");
    }
  }

  /**
   * A file written before the due-time columns existed: open adds them and their indexes, fills
   * them in from the records, and claims then answer from the index, earliest due first; a row
   * an older library inserted without them later is filled in at the next open.
   */
  @Test
  void a_store_written_before_the_due_columns_opens_and_claims_from_the_due_index()
      throws Exception {
    Path file = dir.resolve("intents.db");
    Instant t0 = newRecord("s", "op", "x").createdAt();
    IntentRecord late = pending(newRecord("s", "op", "late"), t0.plusSeconds(30));
    IntentRecord early = pending(newRecord("s", "op", "early"), t0.plusSeconds(10));
    IntentRecord reconcile = newRecord("s", "op", "reconcile").toBuilder()
        .state(IntentState.NEEDS_RECONCILIATION).build();
    IntentRecord done = newRecord("s", "op", "done").toBuilder()
        .state(IntentState.COMPLETED).build();
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      for (IntentRecord r : List.of(late, early, reconcile, done)) {
        store.create(r);
      }
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.execute("DROP INDEX intent_due");
      st.execute("DROP INDEX intent_due_unknown");
      st.execute("ALTER TABLE intent DROP COLUMN due_s");
      st.execute("ALTER TABLE intent DROP COLUMN due_ns");
    }
    assertThat(schemaNames(file)).doesNotContain("intent_due", "intent_due_unknown");
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThat(store.claimDue(t0.plusSeconds(60), 10)).containsExactly(early, late);
      assertThat(store.claimDue(t0.plusSeconds(20), 10)).containsExactly(early);
    }
    assertThat(schemaNames(file)).contains("intent_due", "intent_due_unknown");
    assertThat(countRows(file, "SELECT count(*) FROM intent"
        + " WHERE open_s IS NOT NULL AND due_s IS NULL")).isZero();

    IntentRecord insertedByAnOlderLibrary = pending(newRecord("s", "op", "older"),
        t0.plusSeconds(5));
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      store.create(insertedByAnOlderLibrary);
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE intent SET due_s = NULL, due_ns = NULL WHERE open_s IS NOT NULL"
          + " AND due_s = " + t0.plusSeconds(5).getEpochSecond());
    }
    assertThat(countRows(file, "SELECT count(*) FROM intent"
        + " WHERE open_s IS NOT NULL AND due_s IS NULL")).isEqualTo(1);
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThat(store.claimDue(t0.plusSeconds(60), 10))
          .containsExactly(insertedByAnOlderLibrary, early, late);
    }
  }

  /**
   * A row whose due columns an older library left behind when it changed the record: a claim that
   * reads it goes by the record and sets the columns right.
   */
  @Test
  void a_row_with_a_stale_due_time_is_claimed_by_its_record_and_set_right() throws Exception {
    Path file = dir.resolve("intents.db");
    Instant t0 = newRecord("s", "op", "x").createdAt();
    IntentRecord stale = pending(newRecord("s", "op", "stale"), t0.plusSeconds(40));
    IntentRecord other = pending(newRecord("s", "op", "other"), t0.plusSeconds(20));
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      store.create(stale);
      store.create(other);
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE intent SET due_s = " + t0.plusSeconds(1).getEpochSecond()
          + " WHERE due_s = " + t0.plusSeconds(40).getEpochSecond());
    }
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThat(store.claimDue(t0.plusSeconds(30), 10)).containsExactly(other);
      assertThat(store.claimDue(t0.plusSeconds(60), 1)).containsExactly(other);
      assertThat(store.claimDue(t0.plusSeconds(60), 10)).containsExactly(other, stale);
    }
    assertThat(countRows(file, "SELECT count(*) FROM intent WHERE due_s = "
        + t0.plusSeconds(40).getEpochSecond())).isEqualTo(1);
  }

  private static IntentRecord pending(IntentRecord r, Instant next) {
    return r.toBuilder().state(IntentState.PENDING).nextAttemptAt(next).build();
  }

  private static long countRows(Path file, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }

  @Test
  void a_damaged_stub_is_reported_not_listed() throws Exception {
    Path file = dir.resolve("intents.db");
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      store.create(newRecord("s", "op", "a"));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE intent SET stub = substr(stub, 1, 10) || x'ff' ||"
          + " substr(stub, 12)");
    }
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThatThrownBy(store::listUnfinishedIds)
          .isInstanceOf(StoreCorruptedException.class)
          .hasMessageContaining(file.toString());
    }
  }

  @Test
  void the_key_and_the_business_id_are_not_stored_in_clear_columns() throws Exception {
    Path file = dir.resolve("intents.db");
    IntentRecord r = fullRecord("tenant", "pay", "secret-key-123");
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      store.create(r);
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT lookup, business FROM intent")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getBytes(1)).hasSize(32);
      assertThat(rs.getBytes(2)).hasSize(32);
      assertThat(new String(rs.getBytes(1), StandardCharsets.ISO_8859_1))
          .doesNotContain("secret-key-123");
    }
  }

  @Test
  void purge_gives_the_space_of_expired_records_back_to_the_file_system() throws Exception {
    Path file = dir.resolve("intents.db");
    byte[] body = new byte[8 * 1024];
    Arrays.fill(body, (byte) 'b');
    Instant expiry = Instant.parse("2026-11-30T00:00:00Z");
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      for (int i = 0; i < 200; i++) {
        IntentRecord r = newRecord("s", "op", "k" + i).toBuilder()
            .body(body, "application/octet-stream").expiresAt(expiry).build();
        store.create(r);
        store.compareAndSet(r, r.successor().state(IntentState.COMPLETED).build());
      }
      store.create(newRecord("s", "op", "kept"));
    }
    long full = Files.size(file);
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThat(store.purgeExpired(expiry)).isEqualTo(200);
      assertThat(store.listUnfinished()).hasSize(1);
    }
    assertThat(Files.size(file)).as("bytes after purge, %d before", full).isLessThan(full / 10);
  }

  @Test
  void an_encrypted_store_keeps_bodies_out_of_the_file_and_refuses_the_wrong_key()
      throws Exception {
    Path file = dir.resolve("intents.db");
    IntentRecord r = fullRecord("tenant", "pay", "k1").toBuilder()
        .body("PLAINTEXT-BODY".getBytes(StandardCharsets.UTF_8), "text/plain").build();
    StoreOptions withA = StoreOptions.builder().encryption(StoreEncryption.aes256Gcm(KEY_A)).build();
    try (SqliteIntentStore store = SqliteIntentStore.open(file, withA)) {
      store.create(r);
    }
    assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1))
        .doesNotContain("PLAINTEXT-BODY");
    StoreOptions withB = StoreOptions.builder().encryption(StoreEncryption.aes256Gcm(KEY_B)).build();
    assertThatThrownBy(() -> SqliteIntentStore.open(file, withB))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("another encryption key");
    assertThatThrownBy(() -> SqliteIntentStore.open(file))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("is encrypted");
    try (SqliteIntentStore store = SqliteIntentStore.open(file, withA)) {
      assertThat(store.get(r.id())).contains(r);
    }
  }

  @Test
  void a_plain_store_refuses_to_be_opened_with_a_key() {
    Path file = dir.resolve("intents.db");
    SqliteIntentStore.open(file).close();
    StoreOptions withA = StoreOptions.builder().encryption(StoreEncryption.aes256Gcm(KEY_A)).build();
    assertThatThrownBy(() -> SqliteIntentStore.open(file, withA))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("without encryption");
  }

  @Test
  void a_cached_store_never_serves_an_older_revision_than_the_last_commit() throws Exception {
    StoreOptions cached = StoreOptions.builder().cache(new LruRecordCache.Factory(), 10).build();
    try (SqliteIntentStore store = SqliteIntentStore.open(dir.resolve("intents.db"), cached)) {
      IntentRecord r = newRecord("s", "op", "k");
      store.create(r);
      List<Thread> readers = new ArrayList<>();
      List<AssertionError> errors = new ArrayList<>();
      IntentRecord current = r;
      AtomicLong committed = new AtomicLong();
      AtomicBoolean stop = new AtomicBoolean();
      for (int t = 0; t < 3; t++) {
        Thread reader = new Thread(() -> {
          while (!stop.get()) {
            long floor = committed.get();
            long seen = store.get(r.id()).orElseThrow().revision();
            if (seen < floor) {
              synchronized (errors) {
                errors.add(new AssertionError("read revision " + seen + " after " + floor
                    + " was committed"));
              }
            }
          }
        });
        readers.add(reader);
        reader.start();
      }
      for (int i = 0; i < 60; i++) {
        IntentRecord next = current.successor().attempts(i + 1).build();
        assertThat(store.compareAndSet(current, next)).isTrue();
        committed.set(next.revision());
        current = next;
      }
      stop.set(true);
      for (Thread reader : readers) {
        reader.join();
      }
      assertThat(errors).isEmpty();
      assertThat(store.get(r.id())).contains(current);
    }
  }

  private static String queryPlan(Path file, String sql) throws Exception {
    StringBuilder plan = new StringBuilder();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
      while (rs.next()) {
        plan.append(rs.getString("detail")).append('\n');
      }
    }
    return plan.toString();
  }

  private static List<String> schemaNames(Path file) throws Exception {
    List<String> names = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT name FROM sqlite_schema")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }

  private static byte[] filled(byte b) {
    byte[] key = new byte[StoreEncryption.KEY_BYTES];
    Arrays.fill(key, b);
    return key;
  }
}
