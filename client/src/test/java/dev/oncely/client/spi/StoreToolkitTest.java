package dev.oncely.client.spi;

import static dev.oncely.client.spi.IntentStoreContract.newRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoreException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared store rules on their own, one test per rule. */
class StoreToolkitTest {
  private static final StoreEncryption KEY_A = key((byte) 1);
  private static final StoreEncryption KEY_B = key((byte) 2);

  @TempDir File dir;

  private static StoreEncryption key(byte b) {
    byte[] key = new byte[StoreEncryption.KEY_BYTES];
    Arrays.fill(key, b);
    return StoreEncryption.aes256Gcm(key);
  }

  @Test
  void close_runs_every_step_once_and_reports_every_failure() {
    StoreClosing closing = new StoreClosing("store-x");
    List<String> ran = new ArrayList<>();
    assertThatThrownBy(() -> closing.close(
        () -> ran.add("committer"),
        () -> {
          ran.add("connection");
          throw new IOException("disk");
        },
        () -> {
          ran.add("lock");
          throw new IllegalStateException("lock");
        }))
        .isInstanceOf(StoreException.class)
        .hasMessageStartingWith("store-x: closing the store failed")
        .hasCauseInstanceOf(IOException.class)
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
    assertThat(ran).containsExactly("committer", "connection", "lock");
    closing.close(() -> ran.add("again"));
    assertThat(ran).hasSize(3);
    assertThatThrownBy(closing::checkOpen).isInstanceOf(StoreException.class)
        .hasMessage("store-x is closed");
  }

  @Test
  void an_insert_that_changed_nothing_is_a_duplicate_only_when_something_is_taken() {
    IntentRecord r = newRecord("s", "op", "k").toBuilder().businessId("order-1").build();
    assertThat(Duplicates.afterConflict("db", r, true, true))
        .isInstanceOf(DuplicateIntentException.class).hasMessageContaining("already exists");
    assertThat(Duplicates.afterConflict("db", r, false, true))
        .isInstanceOf(DuplicateIntentException.class).hasMessageContaining("business id");
    assertThat(Duplicates.afterConflict("db", r, false, false))
        .isInstanceOf(StoreCorruptedException.class).hasMessageStartingWith("db: ");
  }

  @Test
  void a_found_record_must_carry_the_business_id_it_was_found_by() {
    IntentRecord r = newRecord("s", "op", "k").toBuilder().businessId("order-1").build();
    assertThat(BusinessKey.checkFound("db", r, "s", "op", "order-1")).isSameAs(r);
    assertThatThrownBy(() -> BusinessKey.checkFound("db", r, "s", "op", "order-2"))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("another business id");
    assertThat(BusinessKey.of(r)).isEqualTo(BusinessKey.of("s", "op", "order-1"))
        .isNotEqualTo(RecordCodec.lookupKey(r.id()));
    assertThat(BusinessKey.of(newRecord("s", "op", "k"))).isNull();
  }

  @Test
  void sealing_binds_its_associated_data_and_refuses_another_key() {
    byte[] aad = "public".getBytes(StandardCharsets.UTF_8);
    byte[] sealed = new Sealing(KEY_A).seal("secret".getBytes(StandardCharsets.UTF_8), aad);
    assertThat(new String(new Sealing(KEY_A).open(sealed, aad, "db", "value"),
        StandardCharsets.UTF_8)).isEqualTo("secret");
    assertThatThrownBy(() -> new Sealing(KEY_B).open(sealed, aad, "db", "value"))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("another encryption key");
    assertThatThrownBy(() -> new Sealing(KEY_A).open(sealed, new byte[1], "db", "value"))
        .isInstanceOf(StoreEncryptionException.class);
    assertThatThrownBy(() -> new Sealing(null).open(sealed, aad, "db", "value"))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("without StoreEncryption");
    assertThatThrownBy(() -> new Sealing(KEY_A).checkPlain("db", "value"))
        .isInstanceOf(StoreEncryptionException.class);
  }

  @Test
  void the_canary_refuses_another_key_and_another_setting() {
    byte[] stored = new KeyCanary(KEY_A).bytes();
    new KeyCanary(KEY_A).check(stored, "db");
    assertThatThrownBy(() -> new KeyCanary(KEY_B).check(stored, "db"))
        .isInstanceOf(StoreEncryptionException.class);
    assertThatThrownBy(() -> new KeyCanary(null).checkSetting(true, "db"))
        .isInstanceOf(StoreEncryptionException.class).hasMessageContaining("is encrypted");
    assertThatThrownBy(() -> new KeyCanary(KEY_A).checkSetting(false, "db"))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("without encryption");
    assertThatThrownBy(() -> new KeyCanary(KEY_A).check(null, "db"))
        .isInstanceOf(StoreCorruptedException.class).hasMessageContaining("missing");
  }

  @Test
  void quarantine_names_never_overwrite() throws IOException {
    File db = new File(dir, "intents.db");
    String suffix = Quarantine.suffix(Instant.parse("2026-11-30T08:15:30.123Z"));
    assertThat(suffix).isEqualTo(".corrupt-20261130T081530123Z");
    File first = Quarantine.target(db, suffix);
    assertThat(first.getName()).isEqualTo("intents.db.corrupt-20261130T081530123Z");
    assertThat(first.createNewFile()).isTrue();
    assertThat(Quarantine.target(db, suffix).getName())
        .isEqualTo("intents.db.corrupt-20261130T081530123Z-1");
  }

  @Test
  void a_failed_open_releases_the_owner_lock() {
    File db = new File(dir, "intents.db");
    assertThatThrownBy(() -> OwnerLock.openOwned(db, lock -> {
      throw new StoreCorruptedException("refused");
    })).hasMessage("refused");
    OwnerLock.openOwned(db, lock -> lock).close();
  }

  @Test
  void a_row_holding_another_key_or_revision_is_refused() {
    IntentRecord r = newRecord("s", "op", "k");
    RecordCodec codec = new RecordCodec();
    byte[] lookup = RecordCodec.lookupKey(r.id());
    assertThat(StoredRows.decode(codec, "db", lookup, codec.encode(r))).isEqualTo(r);
    byte[] other = RecordCodec.lookupKey(newRecord("s", "op", "other").id());
    assertThatThrownBy(() -> StoredRows.decode(codec, "db", other, codec.encode(r)))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("db: " + StoredRows.name(other))
        .hasMessageContaining("belongs under another key");
    assertThatThrownBy(() -> StoredRows.checkRevision("db", lookup, 4, r))
        .isInstanceOf(StoreCorruptedException.class).hasMessageContaining("revision column 4");
  }
}
