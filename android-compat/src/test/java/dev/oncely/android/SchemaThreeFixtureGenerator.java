package dev.oncely.android;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.Assume.assumeTrue;

import android.database.sqlite.SQLiteDatabase;
import dev.oncely.client.IntentRecord;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;

/**
 * Writes the {@link SchemaThreeFixture} files with the store code of this commit (schema 3), into
 * the directory {@code -Doncely.fixture.dir} names; skipped without it. Run once:
 * {@code mvn -o -pl android-compat -am test -Dtest=SchemaThreeFixtureGenerator
 * -Doncely.fixture.dir=$PWD/android-compat/src/test/resources/dev/oncely/android}.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35, manifest = Config.NONE)
public class SchemaThreeFixtureGenerator {
  @Test
  public void writes_the_schema_3_store_files() throws Exception {
    String target = System.getProperty("oncely.fixture.dir");
    assumeTrue("set -Doncely.fixture.dir to write the fixtures", target != null);
    File dir = RuntimeEnvironment.getApplication().getNoBackupFilesDir();
    write(new File(dir, SchemaThreeFixture.PLAIN), AndroidStoreOptions.defaults(), target);
    write(new File(dir, SchemaThreeFixture.SEALED), AndroidStoreOptions.builder()
        .encryption(SchemaThreeFixture.encryption()).build(), target);
  }

  private static void write(File file, AndroidStoreOptions options, String target)
      throws Exception {
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file, options)) {
      for (List<IntentRecord> history : SchemaThreeFixture.histories()) {
        store.create(history.get(0));
        for (int i = 1; i < history.size(); i++) {
          assertThat(store.compareAndSet(history.get(i - 1), history.get(i))).isTrue();
        }
      }
    }
    try (AndroidSqliteIntentStore store = AndroidSqliteIntentStore.open(file, options)) {
      for (IntentRecord r : SchemaThreeFixture.records()) {
        assertThat(store.get(r.id())).contains(r);
      }
    }
    assertThat(new File(file.getPath() + "-wal")).as("the close folded the WAL").doesNotExist();
    try (SQLiteDatabase raw = SQLiteDatabase.openDatabase(file.getPath(), null,
        SQLiteDatabase.OPEN_READONLY)) {
      assertThat(raw.getVersion()).isEqualTo(3);
    }
    Files.copy(file.toPath(), Path.of(target, file.getName()),
        StandardCopyOption.REPLACE_EXISTING);
  }
}
