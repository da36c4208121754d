package dev.oncely.examples.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.examples.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Runs {@code run}/{@code resume} in-process through {@link Main#run} and keeps what they print. */
final class LoadCli {
  final int exitCode;
  final String stdout;
  final String stderr;

  private LoadCli(int exitCode, String stdout, String stderr) {
    this.exitCode = exitCode;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  static LoadCli main(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new LoadCli(code, out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
  }

  static List<String> args(String command, String target, String store, String... more) {
    List<String> a = new ArrayList<>(List.of(command, "--target", target, "--store", store));
    a.addAll(List.of(more));
    return a;
  }

  static LoadCli main(List<String> args) {
    return main(args.toArray(String[]::new));
  }

  /** The report: the last line of stdout, parsed. */
  JsonNode report() throws IOException {
    String[] lines = stdout.strip().split("\n");
    assertThat(lines).isNotEmpty();
    return new ObjectMapper().readTree(lines[lines.length - 1]);
  }
}
