package dev.oncely.cli;

import dev.oncely.cli.internal.CliContext;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;
import picocli.CommandLine;

/** One in-process run of the CLI with captured output. */
record CliRun(int exitCode, String out, String err) {
  static CliRun of(Clock clock, Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = OncelyCli.commandLine(new CliContext(clock, env, StoreOpeners.discover()));
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }

  static CliRun of(Clock clock, String... args) {
    return of(clock, Map.of(), args);
  }

  @Override
  public String toString() {
    return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
  }
}
