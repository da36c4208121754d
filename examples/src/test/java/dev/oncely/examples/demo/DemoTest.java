package dev.oncely.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.examples.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The demo end to end, small: real child JVMs, a real SIGKILL, real servers. */
class DemoTest {
  private static final Pattern DUPLICATES =
      Pattern.compile("duplicates \\(double charges\\)\\s+(\\d+)\\s+(\\d+)");

  @Test
  void sdk_survives_a_kill_with_zero_duplicates_while_the_naive_client_double_charges() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = Main.run(new String[] {"demo", "--intents", "80", "--concurrency", "6",
            "--faults", "drop=0.3,refuse=0.05,latency=30ms,seed=1", "--kill-at", "0.3",
            "--attempt-timeout-ms", "2000"},
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    String table = out.toString(StandardCharsets.UTF_8);
    String progress = err.toString(StandardCharsets.UTF_8);

    assertThat(exit).as(progress + table).isZero();
    assertThat(progress).contains("client JVM killed (SIGKILL) at");
    Matcher m = DUPLICATES.matcher(table);
    assertThat(m.find()).as(table).isTrue();
    assertThat(Long.parseLong(m.group(1))).as("SDK duplicates").isZero();
    assertThat(Long.parseLong(m.group(2))).as("naive duplicates").isPositive();
    assertThat(table).contains("Oncely: every intent took effect exactly once");
  }
}
