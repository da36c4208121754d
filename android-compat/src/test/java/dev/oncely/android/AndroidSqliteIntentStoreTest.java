package dev.oncely.android;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import android.content.ContentValues;
import android.database.Cursor;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteStatement;
import dev.oncely.android.internal.SqlParameters;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreLockedException;
import dev.oncely.client.spi.IntentStoreContract;
import dev.oncely.client.spi.KeyCanary;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.sql.IntentRows;
import dev.oncely.client.spi.sql.IntentSql;
import dev.oncely.client.spi.sql.IntentTable;
import java.io.File;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;

/** What the SQLite store adds to the shared contract: verification, schema guard, indexes. */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35, manifest = Config.NONE)
public class AndroidSqliteIntentStoreTest {
  private File file;

  @Before
  public void pickFile() {
    file = new File(RuntimeEnvironment.getApplication().getNoBackupFilesDir(), "intents.db");
  }

  @Test
  public void flipped_byte_in_a_stored_record_is_reported_and_nothing_is_deleted() {
    IntentRecord record = IntentStoreContract.fullRecord("tenant-a", "create-payment", "k1");
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      store.create(record);
    }
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null, 0)) {
      byte[] blob = blobOf(raw);
      blob[blob.length / 2] ^= 0x01;
      ContentValues values = new ContentValues();
      values.put("record", blob);
      assertThat(raw.update("intent", values, null, null)).isEqualTo(1);
    }
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      assertThatThrownBy(() -> store.get(record.id()))
          .isInstanceOf(StoreCorruptedException.class)
          .hasMessageContaining("checksum mismatch")
          .hasMessageNotContaining("k1");
      assertThatThrownBy(store::listUnfinished).isInstanceOf(StoreCorruptedException.class);
    }
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null, 0)) {
      assertThat(blobOf(raw)).isNotEmpty();
    }
  }

  @Test
  public void record_moved_under_another_key_is_reported() {
    IntentRecord record = IntentStoreContract.newRecord("s", "op", "original");
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      store.create(record);
    }
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null, 0)) {
      ContentValues values = new ContentValues();
      values.put("lookup", RecordCodec.lookupKey(IntentId.of("s", "op", "moved")));
      raw.update("intent", values, null, null);
    }
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      assertThatThrownBy(() -> store.get(IntentId.of("s", "op", "moved")))
          .isInstanceOf(StoreCorruptedException.class)
          .hasMessageContaining("belongs under another key");
    }
  }

  @Test
  public void a_second_instance_on_the_same_file_is_refused_until_the_first_closes() {
    AndroidSqliteIntentStore first = AndroidSqliteIntentStore.open(file);
    try {
      assertThatThrownBy(() -> AndroidSqliteIntentStore.open(file))
          .isInstanceOf(StoreLockedException.class)
          .hasMessageContaining(file.getName());
    } finally {
      first.close();
    }
    AndroidSqliteIntentStore.open(file).close();
  }

  @Test
  public void database_from_a_newer_schema_is_refused() {
    AndroidSqliteIntentStore.open(file).close();
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null, 0)) {
      raw.setVersion(AndroidSqliteIntentStore.SCHEMA_VERSION + 1);
    }
    assertThatThrownBy(() -> AndroidSqliteIntentStore.open(file))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("schema version " + (AndroidSqliteIntentStore.SCHEMA_VERSION + 1));
  }

  @Test
  public void unfinished_listing_and_purge_read_their_partial_indexes_not_the_table() {
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      IntentRecord r = IntentStoreContract.newRecord("s", "op", "k");
      store.create(r);
      store.compareAndSet(r, r.successor().state(IntentState.COMPLETED).build());
    }
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null, 0)) {
      assertThat(plan(raw, IntentSql.UNFINISHED))
          .anyMatch(step -> step.contains("USING INDEX intent_unfinished_ids"))
          .noneMatch(step -> step.contains("TEMP B-TREE"));
      assertThat(plan(raw, IntentSql.PURGE.replace("?", "1")))
          .anyMatch(step -> step.contains("intent_expiry"));
    }
  }

  @Test
  public void claiming_due_records_reads_the_due_index_in_order_without_sorting() {
    AndroidSqliteIntentStore.open(file).close();
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null, 0)) {
      assertThat(plan(raw, (IntentSql.DUE + IntentSql.LIMITED).replace("?", "1")))
          .anyMatch(step -> step.contains("USING INDEX intent_due"))
          .noneMatch(step -> step.contains("TEMP B-TREE"));
    }
  }

  /**
   * A version-2 file (no due columns): open converts it to the shared schema, computing the due
   * columns from the unfinished records, and claims answer from the due index, earliest due first.
   */
  @Test
  public void a_schema_2_file_gets_the_due_index_and_claims_from_it() {
    Instant t0 = IntentStoreContract.newRecord("s", "op", "x").createdAt();
    IntentRecord late = IntentStoreContract.newRecord("s", "op", "late").toBuilder()
        .state(IntentState.PENDING).nextAttemptAt(t0.plusSeconds(30)).build();
    IntentRecord early = IntentStoreContract.newRecord("s", "op", "early").toBuilder()
        .state(IntentState.PENDING).nextAttemptAt(t0.plusSeconds(10)).build();
    IntentRecord done = IntentStoreContract.newRecord("s", "op", "done").toBuilder()
        .state(IntentState.COMPLETED).build();
    try (SQLiteDatabase v2 = SQLiteDatabase.openOrCreateDatabase(file, null)) {
      v2.execSQL("CREATE TABLE records (lookup BLOB NOT NULL PRIMARY KEY, business BLOB,"
          + " unfinished INTEGER NOT NULL, created_sec INTEGER NOT NULL,"
          + " created_nano INTEGER NOT NULL, expires_sec INTEGER NOT NULL,"
          + " expires_nano INTEGER NOT NULL, revision INTEGER NOT NULL, record BLOB NOT NULL)");
      v2.execSQL("CREATE UNIQUE INDEX records_business ON records (business)"
          + " WHERE business IS NOT NULL");
      v2.execSQL("CREATE INDEX records_unfinished ON records (created_sec, created_nano)"
          + " WHERE unfinished = 1");
      v2.execSQL("CREATE INDEX records_finished_expiry ON records (expires_sec, expires_nano)"
          + " WHERE unfinished = 0");
      v2.execSQL("CREATE TABLE meta (name TEXT NOT NULL PRIMARY KEY, value BLOB NOT NULL)");
      ContentValues encrypted = new ContentValues();
      encrypted.put("name", "encrypted");
      encrypted.put("value", new byte[] {0});
      v2.insertOrThrow("meta", null, encrypted);
      ContentValues canary = new ContentValues();
      canary.put("name", "canary");
      canary.put("value", new KeyCanary(null).bytes());
      v2.insertOrThrow("meta", null, canary);
      for (IntentRecord r : new IntentRecord[] {late, early, done}) {
        ContentValues row = new ContentValues();
        row.put("lookup", RecordCodec.lookupKey(r.id()));
        row.put("unfinished", r.state().isTerminal() ? 0 : 1);
        row.put("created_sec", r.createdAt().getEpochSecond());
        row.put("created_nano", r.createdAt().getNano());
        row.put("expires_sec", r.expiresAt().getEpochSecond());
        row.put("expires_nano", r.expiresAt().getNano());
        row.put("revision", r.revision());
        row.put("record", new RecordCodec().encode(r));
        v2.insertOrThrow("records", null, row);
      }
      v2.setVersion(2);
    }
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      assertThat(store.claimDue(t0.plusSeconds(60), 10)).containsExactly(early, late);
      assertThat(store.claimDue(t0.plusSeconds(20), 10)).containsExactly(early);
      assertThat(store.claimDue(t0.plusSeconds(60), 1)).containsExactly(early);
    }
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null, 0)) {
      assertThat(raw.getVersion()).isEqualTo(AndroidSqliteIntentStore.SCHEMA_VERSION);
    }
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      assertThat(store.claimDue(t0.plusSeconds(60), 10)).containsExactly(early, late);
    }
  }

  /**
   * The schema is the one every engine shares: a file laid out as the JVM engine writes it (stubs
   * included, no {@code user_version}) opens as it is, and its records read back.
   */
  @Test
  public void a_file_in_the_shared_schema_written_without_a_user_version_opens_as_it_is() {
    IntentRecord unfinished = IntentStoreContract.fullRecord("s", "op", "k-open");
    IntentRecord done = IntentStoreContract.newRecord("s", "op", "k-done").toBuilder()
        .state(IntentState.COMPLETED).build();
    IntentRows jvm = IntentRows.withStubs("jvm", null);
    try (SQLiteDatabase shared = SQLiteDatabase.openOrCreateDatabase(file, null)) {
      for (String ddl : IntentTable.create()) {
        shared.execSQL(ddl);
      }
      putMeta(shared, IntentTable.META_SCHEMA, new byte[] {IntentTable.VERSION});
      putMeta(shared, IntentTable.META_ENCRYPTED, new byte[] {0});
      putMeta(shared, IntentTable.META_CANARY, new KeyCanary(null).bytes());
      for (IntentRecord r : new IntentRecord[] {unfinished, done}) {
        SQLiteStatement insert = shared.compileStatement(IntentSql.INSERT);
        SqlParameters.bind(insert, jvm.row(r).insertParameters());
        assertThat(insert.executeUpdateDelete()).isEqualTo(1);
        insert.close();
      }
    }
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      assertThat(store.get(unfinished.id())).contains(unfinished);
      assertThat(store.get(done.id())).contains(done);
      assertThat(store.listUnfinished()).containsExactly(unfinished);
      assertThat(store.findByBusinessId("s", "op", unfinished.businessId()))
          .contains(unfinished);
    }
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null, 0)) {
      assertThat(raw.getVersion()).isZero();
    }
  }

  private static void putMeta(SQLiteDatabase db, String name, byte[] value) {
    ContentValues row = new ContentValues();
    row.put("name", name);
    row.put("value", value);
    db.insertOrThrow("oncely_meta", null, row);
  }

  @Test
  public void store_writes_through_a_wal_file_and_survives_reopen_in_no_backup_dir() {
    IntentRecord record = IntentStoreContract.fullRecord("s", "op", "k");
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      store.create(record);
      assertThat(new File(file.getPath() + "-wal")).exists();
    }
    assertThat(file.getParentFile())
        .isEqualTo(RuntimeEnvironment.getApplication().getNoBackupFilesDir());
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      assertThat(store.get(record.id())).contains(record);
    }
  }

  private static byte[] blobOf(SQLiteDatabase raw) {
    try (Cursor c = raw.rawQuery("SELECT record FROM intent", null)) {
      assertThat(c.moveToFirst()).isTrue();
      return c.getBlob(0);
    }
  }

  private static List<String> plan(SQLiteDatabase raw, String sql) {
    List<String> steps = new ArrayList<>();
    try (Cursor c = raw.rawQuery("EXPLAIN QUERY PLAN " + sql, null)) {
      while (c.moveToNext()) {
        steps.add(c.getString(c.getColumnIndexOrThrow("detail")));
      }
    }
    return steps;
  }
}
