package dev.oncely.client.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.StoreLockedException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two openers in one process: the refused one must leave the first owner's lock in force, as seen
 * from another process (a child JVM), because closing any descriptor of the lock file would drop
 * this process's POSIX lock on it.
 */
class OwnerLockTest {
  @TempDir File temp;

  /** What a child JVM sees when it tries to lock {@code lockFile}: HELD or FREE. */
  private static String probe(File lockFile) throws IOException, InterruptedException {
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator
        + "java";
    Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        LockProbe.class.getName(), lockFile.getPath())
        .redirectErrorStream(true)
        .start();
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("probe finished").isTrue();
    return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
  }

  @Test
  void a_refused_second_opener_leaves_the_first_owners_lock_held() throws Exception {
    File database = new File(temp, "intents.db");
    File lockFile = new File(database.getPath() + ".lock");
    OwnerLock first = OwnerLock.acquire(database);
    try {
      assertThatThrownBy(() -> OwnerLock.acquire(database))
          .isInstanceOf(StoreLockedException.class)
          .hasMessageContaining("already open in this process");
      assertThatThrownBy(() -> OwnerLock.acquire(
          new File(temp, "./intents.db")))
          .isInstanceOf(StoreLockedException.class);

      assertThat(first.isHeld()).isTrue();
      assertThat(probe(lockFile)).isEqualTo("HELD");
    } finally {
      first.close();
    }
    assertThat(probe(lockFile)).isEqualTo("FREE");
  }

  @Test
  void the_lock_can_be_taken_again_after_release_and_release_is_idempotent() {
    File database = new File(temp, "intents.db");
    OwnerLock first = OwnerLock.acquire(database);
    first.close();
    first.close();
    assertThat(first.isHeld()).isFalse();

    OwnerLock second = OwnerLock.acquire(database);
    assertThat(second.isHeld()).isTrue();
    second.close();
    assertThat(new File(database.getPath() + ".lock")).exists();
  }

  @Test
  void a_lock_held_by_another_process_is_refused() throws Exception {
    File database = new File(temp, "intents.db");
    File lockFile = new File(database.getPath() + ".lock");
    Files.createFile(lockFile.toPath());
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator
        + "java";
    Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        LockHolder.class.getName(), lockFile.getPath()).start();
    try {
      assertThat(holder.getInputStream().read()).as("holder locked").isEqualTo('L');
      assertThatThrownBy(() -> OwnerLock.acquire(database))
          .isInstanceOf(StoreLockedException.class)
          .hasMessageContaining("another process");
    } finally {
      holder.destroyForcibly().waitFor();
    }
    OwnerLock.acquire(database).close();
  }
}
