package dev.oncely.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.oncely.client.StoreException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disk that refuses writes, made real with a file-size limit on a child JVM: the refused write
 * is a clear {@link StoreException} naming the path, and nothing acknowledged before it is lost.
 */
class SqliteDiskErrorTest {
  private static final int BODY_BYTES = 32 * 1024;

  @TempDir Path dir;

  @Test
  void a_write_the_disk_refuses_is_a_store_exception_and_loses_nothing_acknowledged()
      throws Exception {
    Path bash = Path.of("/bin/bash");
    assumeTrue(Files.isExecutable(bash), "bash for ulimit");
    Path file = dir.resolve("intents.db");
    Path nativeDir = Files.createDirectories(dir.resolve("native"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // 3 MiB: room for SQLite's native library (1 MiB) and a WAL of about 90 records.
    Process child = new ProcessBuilder(bash.toString(), "-c",
        "ulimit -f 3072 && exec \"$0\" \"$@\"", java, "-Dorg.sqlite.tmpdir=" + nativeDir,
        "-cp", System.getProperty("java.class.path"), DiskFullChild.class.getName(),
        file.toString(), Integer.toString(BODY_BYTES))
        .redirectError(dir.resolve("child.err").toFile())
        .start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        lines.add(line);
      }
    }
    assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String err = Files.readString(dir.resolve("child.err"));
    List<String> acks = lines.stream().filter(l -> l.startsWith("ACK ")).toList();
    assertThat(acks).as("stdout %s, stderr %s", lines, err).isNotEmpty();
    assertThat(lines).as("stderr %s", err).anySatisfy(line -> assertThat(line)
        .startsWith("FAILED " + StoreException.class.getName() + " ")
        .contains(file.toString()));
    assertThat(lines).contains("READ-OK");

    try (SqliteIntentStore store = SqliteIntentStore.open(file)) {
      byte[] body = new byte[BODY_BYTES];
      for (int n = 0; n < acks.size(); n++) {
        assertThat(store.get(DiskFullChild.record(n, body).id()))
            .contains(DiskFullChild.record(n, body));
      }
      assertThat(store.get(DiskFullChild.record(acks.size(), body).id())).isEmpty();
      assertThat(store.listUnfinished()).hasSize(acks.size());
    }
  }
}
