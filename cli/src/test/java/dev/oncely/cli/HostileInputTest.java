package dev.oncely.cli;

import static dev.oncely.cli.Records.NOW;
import static dev.oncely.cli.Records.record;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI under hostile input: every expected failure is one line and a
 * non-zero exit, never a stack trace; files are read bounded; record text cannot drive the
 * terminal.
 */
class HostileInputTest {
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  @TempDir Path dir;

  private Path store(IntentRecord... records) {
    Path file = dir.resolve("intents.db");
    try (IntentStore store = StoreEngine.SQLITE.open(file)) {
      for (IntentRecord r : records) {
        store.create(r);
      }
    }
    return file;
  }

  private static void assertOneLineFailure(CliRun run) {
    assertThat(run.exitCode()).as(run.toString()).isNotZero();
    assertThat(run.err().strip()).as(run.toString()).doesNotContain("\n")
        .doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  void an_overflowing_finished_retention_is_a_usage_error() {
    IntentRecord r = record("k-ret", IntentState.NEEDS_RECONCILIATION, Duration.ofHours(1)).build();
    Path file = store(r);
    for (String retention : new String[] {"PT9223372036854775807S", "P9999999999999D", "P36501D"}) {
      CliRun run = CliRun.of(CLOCK, "resolve", r.id().safeKey(), "--store", file.toString(),
          "--as", "rejected", "--note", "checked", "--finished-retention", retention);
      assertOneLineFailure(run);
      assertThat(run.exitCode()).as(retention).isEqualTo(OncelyCli.EXIT_USAGE);
    }
  }

  @Test
  void a_header_file_must_be_owner_only_and_small() throws Exception {
    IntentRecord r = record("k-hf", IntentState.PENDING, Duration.ofHours(1)).build();
    Path file = store(r);
    Path readable = Files.writeString(dir.resolve("creds"), "Authorization: Bearer t\n");
    Files.setPosixFilePermissions(readable, PosixFilePermissions.fromString("rw-r--r--"));
    Path huge = dir.resolve("huge");
    Files.write(huge, new byte[1 << 20]);
    Files.setPosixFilePermissions(huge, PosixFilePermissions.fromString("rw-------"));
    Path badName = Files.writeString(dir.resolve("bad"), "Authorization:Bearer: t\nX Y: z\n");
    Files.setPosixFilePermissions(badName, PosixFilePermissions.fromString("rw-------"));
    for (Path headers : new Path[] {readable, huge, Path.of("/dev/zero"), badName}) {
      CliRun run = CliRun.of(CLOCK, "retry", r.id().safeKey(), "--store", file.toString(),
          "--drive", "--header-file", headers.toString());
      assertOneLineFailure(run);
      assertThat(run.exitCode()).as(headers.toString()).isEqualTo(OncelyCli.EXIT_USAGE);
    }
  }

  @Test
  void control_characters_in_record_text_are_printed_escaped() {
    IntentRecord r = record("k-esc", IntentState.PENDING, Duration.ofHours(1))
        .reason("reason \u001b[31mred")
        .addNote(new IntentRecord.Note(NOW, "eve\u0007", "note \u001b]0;owned\u0007 \r over"))
        .build();
    Path file = store(r);
    CliRun run = CliRun.of(CLOCK, "show", r.id().safeKey(), "--store", file.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).doesNotContain("\u001b").doesNotContain("\u0007").doesNotContain("\r")
        .contains("\\x1b[31mred", "eve\\x07", "\\x0d over");
  }
}
