package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The app (a real child JVM) holds the store open; the CLI, run as another real JVM, must end with
 * a typed "store in use" error that says what to do, and must work once the app is gone.
 */
class OwnerLockTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void cli_refuses_a_store_the_app_holds_open_and_says_to_stop_the_app(StoreEngine engine)
      throws Exception {
    Path file = dir.resolve("app-" + engine + ".db");
    try (IntentStore store = engine.open(file)) {
      store.create(Records.record("held", IntentState.PENDING, Duration.ofMinutes(1)).build());
    }
    Process app = java(StoreHolderChild.class.getName(), engine.toString(), file.toString())
        .redirectError(dir.resolve("app.err").toFile()).start();
    try {
      String line = new BufferedReader(new InputStreamReader(app.getInputStream(),
          StandardCharsets.UTF_8)).readLine();
      assertThat(line).as("app stderr: %s", Files.readString(dir.resolve("app.err")))
          .startsWith("OPEN ");
      String pid = line.substring("OPEN ".length());

      Result busy = cli("list", "--store", file.toString());

      assertThat(busy.exitCode).as(busy.err).isEqualTo(OncelyCli.EXIT_STORE_IN_USE);
      assertThat(busy.err).contains("the store is in use", "pid " + pid, "Stop the app",
          "run this command again");
    } finally {
      app.getOutputStream().close();
      assertThat(app.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
    Result free = cli("list", "--store", file.toString());
    assertThat(free.exitCode).as(free.err).isZero();
    assertThat(free.out).contains("PENDING", "1 unfinished");
  }

  private record Result(int exitCode, String out, String err) {}

  private Result cli(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(OncelyCli.class.getName()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "cli", ".out");
    Path err = Files.createTempFile(dir, "cli", ".err");
    Process cli = java(command.toArray(String[]::new))
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertThat(cli.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Result(cli.exitValue(), Files.readString(out), Files.readString(err));
  }

  private ProcessBuilder java(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dorg.sqlite.tmpdir=" + Files.createDirectories(dir.resolve("native")),
        "-cp", System.getProperty("java.class.path")));
    command.addAll(List.of(args));
    return new ProcessBuilder(command);
  }
}
