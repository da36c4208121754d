package dev.oncely.persistence;

import static dev.oncely.client.spi.IntentStoreContract.newRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoreLockedException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One owner per file, owner-only permissions and clear errors for unusable directories. */
class SqliteOwnershipTest {
  @TempDir Path dir;

  @Test
  void second_opener_in_the_same_jvm_gets_store_locked_naming_the_path_and_leaks_nothing()
      throws Exception {
    Path file = dir.resolve("intents.db");
    IntentRecord record = newRecord("s", "op", "k");
    SqliteIntentStore first = SqliteIntentStore.open(file);
    first.create(record);
    long before = openDescriptorsUnder(dir);
    assertThatThrownBy(() -> SqliteIntentStore.open(file))
        .isInstanceOf(StoreLockedException.class)
        .hasMessageContaining(file.toString());
    assertThatThrownBy(() -> SqliteIntentStore.open(dir.resolve(".").resolve("intents.db")))
        .isInstanceOf(StoreLockedException.class);
    assertThat(openDescriptorsUnder(dir)).isEqualTo(before);
    assertThat(first.get(record.id())).contains(record);
    first.close();
    assertThat(openDescriptorsUnder(dir)).isZero();
    try (SqliteIntentStore reopened = SqliteIntentStore.open(file)) {
      assertThat(reopened.get(record.id())).contains(record);
    }
    assertThat(openDescriptorsUnder(dir)).isZero();
  }

  @Test
  void second_opener_in_another_process_gets_store_locked_until_that_process_dies()
      throws Exception {
    Path file = dir.resolve("intents.db");
    Process holder = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dorg.sqlite.tmpdir=" + Files.createDirectories(dir.resolve("native")),
        "-cp", System.getProperty("java.class.path"), LockHolderChild.class.getName(),
        file.toString())
        .redirectError(dir.resolve("holder.err").toFile())
        .start();
    try {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      assertThat(line).as("holder stderr: %s", Files.readString(dir.resolve("holder.err")))
          .startsWith("LOCKED ");
      long before = openDescriptorsUnder(dir);
      assertThatThrownBy(() -> SqliteIntentStore.open(file))
          .isInstanceOf(StoreLockedException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("another process")
          .hasMessageContaining("pid " + line.substring("LOCKED ".length()));
      assertThat(openDescriptorsUnder(dir)).isEqualTo(before);
    } finally {
      holder.toHandle().destroyForcibly();
      assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      assertThat(store.listUnfinished()).isEmpty();
    }
  }

  @Test
  void store_files_are_readable_by_the_owner_only() throws Exception {
    assumeTrue(Files.getFileAttributeView(dir,
        java.nio.file.attribute.PosixFileAttributeView.class) != null, "POSIX file system");
    Path file = dir.resolve("nested/intents.db");
    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      store.create(newRecord("s", "op", "k"));
      for (Path p : List.of(file, dir.resolve("nested/intents.db-wal"),
          dir.resolve("nested/intents.db-shm"), dir.resolve("nested/intents.db.lock"))) {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p)))
            .as(p.toString()).isEqualTo("rw-------");
      }
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
          .isEqualTo("rwx------");
    }
  }

  @Test
  void an_existing_store_readable_by_others_is_tightened_to_the_owner_on_open() throws Exception {
    assumeTrue(Files.getFileAttributeView(dir,
        java.nio.file.attribute.PosixFileAttributeView.class) != null, "POSIX file system");
    Path file = dir.resolve("intents.db");
    SqliteIntentStore.open(file).close();
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    SqliteIntentStore.open(file).close();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
  }

  @Test
  void a_parent_that_is_a_file_is_a_clear_store_error() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
    assertThatThrownBy(() -> SqliteIntentStore.open(notADirectory.resolve("intents.db")))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(notADirectory.toString())
        .hasMessageContaining("not a directory");
  }

  @Test
  void a_directory_that_cannot_be_written_is_a_clear_store_error() throws Exception {
    Path readOnly = Files.createDirectory(dir.resolve("read-only"));
    Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-x------"));
    assumeTrue(!Files.isWritable(readOnly), "permissions are not enforced for this user (root)");
    assertThatThrownBy(() -> SqliteIntentStore.open(readOnly.resolve("intents.db")))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(readOnly.toString())
        .hasMessageContaining("not writable");
  }

  @Test
  void a_directory_that_cannot_be_created_is_a_clear_store_error() {
    Path proc = Path.of("/proc/self");
    assumeTrue(Files.isDirectory(proc), "Linux /proc");
    Path impossible = proc.resolve("oncely-store/intents.db");
    assertThatThrownBy(() -> SqliteIntentStore.open(impossible))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("oncely-store");
  }

  /** How many descriptors of this process point into {@code dir} (Linux /proc/self/fd). */
  static long openDescriptorsUnder(Path dir) throws IOException {
    Path fds = Path.of("/proc/self/fd");
    assumeTrue(Files.isDirectory(fds), "Linux /proc/self/fd");
    String prefix = dir.toRealPath().toString();
    try (Stream<Path> list = Files.list(fds)) {
      return list.filter(fd -> {
        try {
          return Files.readSymbolicLink(fd).toString().startsWith(prefix);
        } catch (IOException e) {
          return false;
        }
      }).count();
    }
  }
}
