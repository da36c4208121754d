package dev.oncely.android;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import android.database.Cursor;
import android.database.sqlite.SQLiteDatabase;
import dev.oncely.client.DueTime;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.UnfinishedEntry;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.sql.IntentRow;
import dev.oncely.client.spi.sql.IntentRows;
import dev.oncely.client.spi.sql.IntentTable;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;

/**
 * A store file the Android store wrote in its layout version 3 ({@link SchemaThreeFixture}: a
 * copy of the committed file, plain or sealed) opens in the shared schema: converted in one
 * transaction, every record reads back as it was written (through every read: by key, by business
 * id, the unfinished listings, the finished walk and a claim), each record's bytes kept byte for
 * byte and every other column what a fresh write of the record would hold, and a second open
 * changes nothing.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35, manifest = Config.NONE)
public class SchemaThreeConversionTest {
  private static final Instant LATER = Instant.parse("2030-01-01T00:00:00Z");

  private File dir;

  @Before
  public void pickDir() {
    dir = RuntimeEnvironment.getApplication().getNoBackupFilesDir();
  }

  @Test
  public void a_plain_schema_3_file_converts_with_every_record_as_it_was_written()
      throws IOException {
    File file = copyOf(SchemaThreeFixture.PLAIN);
    convertsWithEveryRecord(file, AndroidStoreOptions.defaults());
  }

  @Test
  public void a_sealed_schema_3_file_converts_with_its_key_and_every_record_as_it_was_written()
      throws IOException {
    File file = copyOf(SchemaThreeFixture.SEALED);
    assertThatThrownBy(() -> AndroidSqliteIntentStore.open(file))
        .isInstanceOf(StoreEncryptionException.class);
    assertThat(userVersion(file)).as("a refused open converts nothing").isEqualTo(3);
    convertsWithEveryRecord(file, AndroidStoreOptions.builder()
        .encryption(SchemaThreeFixture.encryption()).build());
  }

  @Test
  public void reopening_a_converted_file_changes_nothing() throws IOException {
    File file = copyOf(SchemaThreeFixture.SEALED);
    AndroidStoreOptions options = AndroidStoreOptions.builder()
        .encryption(SchemaThreeFixture.encryption()).build();
    AndroidSqliteIntentStore.open(file, options).close();
    byte[] converted = Files.readAllBytes(file.toPath());
    Map<String, List<Object>> rows = rows(file);

    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file, options)) {
      for (IntentRecord r : SchemaThreeFixture.records()) {
        assertThat(store.get(r.id())).contains(r);
      }
    }

    assertThat(new File(file.getPath() + "-wal")).doesNotExist();
    assertThat(Files.readAllBytes(file.toPath())).as("the file, byte for byte")
        .isEqualTo(converted);
    assertThat(rows(file)).isEqualTo(rows);
    assertThat(userVersion(file)).isEqualTo(AndroidSqliteIntentStore.SCHEMA_VERSION);
  }

  private void convertsWithEveryRecord(File file, AndroidStoreOptions options) {
    Map<String, byte[]> written = recordBytesOfLayout3(file);
    List<IntentRecord> records = SchemaThreeFixture.records();
    InMemoryIntentStore reference = new InMemoryIntentStore();
    for (List<IntentRecord> history : SchemaThreeFixture.histories()) {
      reference.create(history.get(0));
      for (int i = 1; i < history.size(); i++) {
        assertThat(reference.compareAndSet(history.get(i - 1), history.get(i))).isTrue();
      }
    }

    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file, options)) {
      for (IntentRecord r : records) {
        assertThat(store.get(r.id())).as(r.id().toString()).contains(r);
        if (r.businessId() != null) {
          assertThat(store.findByBusinessId(r.id().scope(), r.id().operation(), r.businessId()))
              .contains(r);
        }
      }
      List<IntentRecord> unfinished = records.stream()
          .filter(r -> !r.state().isTerminal()).toList();
      assertThat(store.listUnfinished()).containsExactlyInAnyOrderElementsOf(unfinished);
      assertThat(store.listUnfinishedIds()).containsExactlyInAnyOrderElementsOf(
          unfinished.stream().map(UnfinishedEntry::of).toList());
      List<IntentRecord> finished = new ArrayList<>();
      store.forEachFinished(finished::add);
      assertThat(finished).containsExactlyInAnyOrderElementsOf(records.stream()
          .filter(r -> r.state().isTerminal()).toList());
      List<IntentRecord> claimed = store.claimDue(LATER, 100);
      assertThat(claimed).isNotEmpty()
          .containsExactlyInAnyOrderElementsOf(reference.claimDue(LATER, 100));
      assertThat(claimed).extracting(DueTime::of).isSorted();
    }

    assertThat(userVersion(file)).isEqualTo(AndroidSqliteIntentStore.SCHEMA_VERSION);
    assertThat(schemaNames(file)).containsExactlyInAnyOrder("android_metadata", "intent",
        "oncely_meta", "intent_unfinished_ids", "intent_due", "intent_due_unknown",
        "intent_expiry");
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null,
        SQLiteDatabase.OPEN_READONLY);
        Cursor meta = raw.rawQuery("SELECT value FROM oncely_meta WHERE name = 'schema'", null)) {
      assertThat(meta.moveToFirst()).isTrue();
      assertThat(meta.getBlob(0)).containsExactly(IntentTable.VERSION);
    }
    Map<String, List<Object>> rows = rows(file);
    assertThat(rows).hasSize(records.size());
    IntentRows fresh = IntentRows.withoutStubs("fresh", options.encryption());
    for (IntentRecord r : records) {
      String lookup = hex(RecordCodec.lookupKey(r.id()));
      List<Object> row = rows.get(lookup);
      assertThat(row).as(r.id().toString()).isNotNull();
      assertThat(row.get(6)).as("record bytes of %s", r.id())
          .isEqualTo(hex(written.get(lookup)));
      IntentRow expected = fresh.row(r);
      assertThat(row.subList(0, 6)).as("keys and times of %s", r.id()).isEqualTo(values(
          expected.lookup(), expected.business(), IntentRow.seconds(expected.open()),
          IntentRow.nanos(expected.open()), IntentRow.seconds(expected.purge()),
          IntentRow.nanos(expected.purge())));
      assertThat(row.subList(8, 10)).as("due time of %s", r.id()).isEqualTo(values(
          IntentRow.seconds(expected.due()), IntentRow.nanos(expected.due())));
      assertThat(row.get(7)).as("stub of %s: no column but record holds an id", r.id()).isNull();
    }
  }

  private File copyOf(String resource) throws IOException {
    File file = new File(dir, resource);
    try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream(resource),
        resource)) {
      Files.copy(in, file.toPath(), StandardCopyOption.REPLACE_EXISTING);
    }
    return file;
  }

  /** The record bytes of a layout-3 file by hex lookup key. */
  private static Map<String, byte[]> recordBytesOfLayout3(File file) {
    Map<String, byte[]> bytes = new HashMap<>();
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null,
        SQLiteDatabase.OPEN_READONLY);
        Cursor c = raw.rawQuery("SELECT lookup, record FROM records", null)) {
      while (c.moveToNext()) {
        bytes.put(hex(c.getBlob(0)), c.getBlob(1));
      }
    }
    assertThat(bytes).hasSize(SchemaThreeFixture.records().size());
    return bytes;
  }

  /**
   * Every row of table {@code intent} by hex lookup key: its columns in schema order, blobs as hex
   * strings so rows compare by content ({@link #values}).
   */
  private static Map<String, List<Object>> rows(File file) {
    Map<String, List<Object>> rows = new HashMap<>();
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null,
        SQLiteDatabase.OPEN_READONLY);
        Cursor c = raw.rawQuery("SELECT lookup, business, open_s, open_ns, purge_s, purge_ns,"
            + " record, stub, due_s, due_ns FROM intent", null)) {
      while (c.moveToNext()) {
        List<Object> row = new ArrayList<>();
        for (int i = 0; i < c.getColumnCount(); i++) {
          row.add(switch (c.getType(i)) {
            case Cursor.FIELD_TYPE_NULL -> null;
            case Cursor.FIELD_TYPE_INTEGER -> c.getLong(i);
            case Cursor.FIELD_TYPE_BLOB -> c.getBlob(i);
            default -> throw new AssertionError("column " + c.getColumnName(i) + " holds type "
                + c.getType(i));
          });
        }
        rows.put(hex(c.getBlob(0)), values(row.toArray()));
      }
    }
    return rows;
  }

  /** {@code values} with each {@code byte[]} replaced by its hex, so lists compare by content. */
  private static List<Object> values(Object... values) {
    List<Object> list = new ArrayList<>();
    for (Object v : values) {
      list.add(v instanceof byte[] b ? hex(b) : v);
    }
    return list;
  }

  private static List<String> schemaNames(File file) {
    List<String> names = new ArrayList<>();
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null,
        SQLiteDatabase.OPEN_READONLY);
        Cursor c = raw.rawQuery("SELECT name FROM sqlite_master"
            + " WHERE name NOT LIKE 'sqlite_autoindex_%'", null)) {
      while (c.moveToNext()) {
        names.add(c.getString(0));
      }
    }
    return names;
  }

  private static int userVersion(File file) {
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null,
        SQLiteDatabase.OPEN_READONLY)) {
      return raw.getVersion();
    }
  }

  private static String hex(byte[] bytes) {
    return bytes.length == 0 ? "" : String.format("%0" + bytes.length * 2 + "x",
        new BigInteger(1, bytes));
  }
}
