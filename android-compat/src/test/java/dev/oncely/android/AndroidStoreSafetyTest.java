package dev.oncely.android;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import android.content.ContentValues;
import android.database.Cursor;
import android.database.sqlite.SQLiteDatabase;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.spi.IntentStoreContract;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.StoreEncryption;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;

/**
 * The Android store's safety promises: corruption never deletes, keys are only hashed in columns
 * (and sealed in the record when encrypted), a SecretKey encrypts, a schema-1 file migrates.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35, manifest = Config.NONE)
public class AndroidStoreSafetyTest {
  private static final String SECRET_KEY = "k-SECRET-7f3a9";

  private File dir;
  private File file;

  @Before
  public void pickFile() {
    dir = RuntimeEnvironment.getApplication().getNoBackupFilesDir();
    file = new File(dir, "safety.db");
  }

  private static SecretKey aes256() throws Exception {
    KeyGenerator generator = KeyGenerator.getInstance("AES");
    generator.init(256, new SecureRandom());
    return generator.generateKey();
  }

  private static AndroidStoreOptions encrypted(SecretKey key) {
    return AndroidStoreOptions.builder().encryption(StoreEncryption.aesGcm(key)).build();
  }

  private byte[] fileBytes() throws IOException {
    byte[] db = Files.readAllBytes(file.toPath());
    File wal = new File(file.getPath() + "-wal");
    if (!wal.exists()) {
      return db;
    }
    byte[] log = Files.readAllBytes(wal.toPath());
    byte[] all = Arrays.copyOf(db, db.length + log.length);
    System.arraycopy(log, 0, all, db.length, log.length);
    return all;
  }

  private static boolean contains(byte[] haystack, String needle) {
    return new String(haystack, StandardCharsets.ISO_8859_1).contains(needle);
  }

  @Test
  public void a_file_sqlite_calls_corrupt_is_reported_and_left_exactly_as_it_was()
      throws IOException {
    byte[] garbage = new byte[8192];
    Arrays.fill(garbage, (byte) 0x5a);
    Files.write(file.toPath(), garbage);

    assertThatThrownBy(() -> AndroidSqliteIntentStore.open(file))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining(file.getName())
        .hasMessageContaining("left in place");

    assertThat(Files.readAllBytes(file.toPath())).isEqualTo(garbage);
    assertThat(Objects.requireNonNull(dir.list()))
        .noneMatch(name -> name.startsWith("safety.db.corrupt-"));
  }

  @Test
  public void with_quarantine_copies_a_corrupt_file_is_copied_aside_and_still_kept()
      throws IOException {
    byte[] garbage = new byte[8192];
    Arrays.fill(garbage, (byte) 0x33);
    Files.write(file.toPath(), garbage);

    assertThatThrownBy(() -> AndroidSqliteIntentStore.open(file,
        AndroidStoreOptions.builder().quarantineCopies(true).build()))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("a copy is at");

    assertThat(Files.readAllBytes(file.toPath())).isEqualTo(garbage);
    File[] copies = dir.listFiles(
        (d, name) -> name.matches("safety\\.db\\.corrupt-\\d{8}T\\d{9}Z"));
    assertThat(copies).hasSize(1);
    assertThat(Files.readAllBytes(copies[0].toPath())).isEqualTo(garbage);
  }

  @Test
  public void no_column_holds_the_key_scope_operation_or_business_id() {
    IntentRecord record = IntentStoreContract.fullRecord("tenant-z", "create-payment", SECRET_KEY);
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      store.create(record);
    }
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null, 0);
        Cursor c = raw.rawQuery("SELECT * FROM intent", null)) {
      assertThat(c.moveToFirst()).isTrue();
      for (int i = 0; i < c.getColumnCount(); i++) {
        if (c.getColumnName(i).equals("record")) {
          continue;
        }
        String text = c.getType(i) == Cursor.FIELD_TYPE_NULL ? ""
            : c.getType(i) == Cursor.FIELD_TYPE_BLOB
            ? new String(c.getBlob(i), StandardCharsets.ISO_8859_1) : c.getString(i);
        assertThat(text).as(c.getColumnName(i))
            .doesNotContain(SECRET_KEY, "tenant-z", "create-payment", "order-" + SECRET_KEY);
      }
      assertThat(c.getBlob(c.getColumnIndexOrThrow("lookup")))
          .isEqualTo(RecordCodec.lookupKey(record.id()));
    }
  }

  @Test
  public void with_a_secret_key_the_idempotency_key_and_payload_appear_nowhere_in_the_files()
      throws Exception {
    SecretKey key = aes256();
    // The business id is in the record's public part (the codec keeps it readable).
    IntentRecord record = IntentStoreContract.fullRecord("s", "op", SECRET_KEY).toBuilder()
        .businessId("order-77").build();
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file, encrypted(key))) {
      store.create(record);
      assertThat(fileBytes()).satisfies(bytes -> {
        assertThat(contains(bytes, SECRET_KEY)).as("key in the files").isFalse();
        assertThat(contains(bytes, "\"currency\":\"JPY\"")).as("body in the files").isFalse();
      });
    }
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file, encrypted(key))) {
      assertThat(store.get(record.id())).contains(record);
      assertThat(store.findByBusinessId("s", "op", "order-77")).contains(record);
    }
  }

  @Test
  public void an_encrypted_store_refuses_a_wrong_key_no_key_and_a_plain_store_refuses_a_key()
      throws Exception {
    SecretKey key = aes256();
    AndroidSqliteIntentStore.open(file, encrypted(key)).close();

    assertThatThrownBy(() -> AndroidSqliteIntentStore.open(file, encrypted(aes256())))
        .isInstanceOf(StoreEncryptionException.class);
    assertThatThrownBy(() -> AndroidSqliteIntentStore.open(file))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("is encrypted");

    File plain = new File(dir, "plain.db");
    AndroidSqliteIntentStore.open(plain).close();
    assertThatThrownBy(() -> AndroidSqliteIntentStore.open(plain, encrypted(key)))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("without encryption");
    AndroidSqliteIntentStore.open(file, encrypted(key)).close();
  }

  @Test
  public void a_schema_1_file_with_keys_in_clear_is_migrated_and_keeps_every_record() {
    IntentRecord unfinished = IntentStoreContract.fullRecord("s", "op", SECRET_KEY);
    IntentRecord other = IntentStoreContract.newRecord("s", "op", "k-2");
    try (SQLiteDatabase v1 = SQLiteDatabase.openOrCreateDatabase(file, null)) {
      v1.execSQL("CREATE TABLE intents (scope TEXT NOT NULL, operation TEXT NOT NULL,"
          + " key TEXT NOT NULL, business_id TEXT, unfinished INTEGER NOT NULL,"
          + " created_sec INTEGER NOT NULL, created_nano INTEGER NOT NULL,"
          + " expires_sec INTEGER NOT NULL, expires_nano INTEGER NOT NULL,"
          + " revision INTEGER NOT NULL, record BLOB NOT NULL,"
          + " PRIMARY KEY (scope, operation, key))");
      for (IntentRecord r : new IntentRecord[] {unfinished, other}) {
        ContentValues row = new ContentValues();
        row.put("scope", r.id().scope());
        row.put("operation", r.id().operation());
        row.put("key", r.id().key());
        row.put("business_id", r.businessId());
        row.put("unfinished", 1);
        row.put("created_sec", r.createdAt().getEpochSecond());
        row.put("created_nano", r.createdAt().getNano());
        row.put("expires_sec", r.expiresAt().getEpochSecond());
        row.put("expires_nano", r.expiresAt().getNano());
        row.put("revision", r.revision());
        row.put("record", new RecordCodec().encode(r));
        v1.insertOrThrow("intents", null, row);
      }
      v1.setVersion(1);
    }

    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file)) {
      assertThat(store.get(unfinished.id())).contains(unfinished);
      assertThat(store.findByBusinessId("s", "op", unfinished.businessId())).contains(unfinished);
      assertThat(store.listUnfinished()).containsExactlyInAnyOrder(unfinished, other);
    }
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null, 0);
        Cursor tables = raw.rawQuery("SELECT name FROM sqlite_master WHERE name = 'intents'",
            null)) {
      assertThat(tables.getCount()).isZero();
      assertThat(raw.getVersion()).isEqualTo(AndroidSqliteIntentStore.SCHEMA_VERSION);
    }
  }
}
