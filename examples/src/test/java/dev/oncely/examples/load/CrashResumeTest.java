package dev.oncely.examples.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load driver survives a crash: {@code run} in a child JVM is killed with
 * SIGKILL part-way, {@code resume} finishes the run, and the server counts each payment once.
 */
class CrashResumeTest {
  private static final Pattern COMPLETED = Pattern.compile("driven: completed (\\d+)");
  private static final int INTENTS = 200;

  @TempDir Path dir;

  @Test
  void run_killed_part_way_then_resume_creates_every_payment_exactly_once() throws Exception {
    try (ReferenceServer server = ReferenceServer.builder()
        .faults(FaultPlan.parse("drop=0.1,refuse=0.05,latency=25ms,seed=9"))
        .retryAfterSeconds(0)
        .build()
        .start()) {
      String target = server.baseUrl() + "payments";
      String store = dir.resolve("store").toString();
      Process child = new ProcessBuilder(java(), "-cp", classPath(), "dev.oncely.examples.Main",
          "run", "--target", target, "--store", store, "--intents", Integer.toString(INTENTS),
          "--concurrency", "4", "--progress-ms", "20")
          .redirectOutput(dir.resolve("child.out").toFile())
          .start();
      try {
        BufferedReader stderr = new BufferedReader(
            new InputStreamReader(child.getErrorStream(), StandardCharsets.UTF_8));
        int completedWhenKilled = CompletableFuture
            .supplyAsync(() -> awaitCompleted(stderr, 10))
            .get(120, TimeUnit.SECONDS);
        child.destroyForcibly();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(completedWhenKilled).isLessThan(INTENTS);
      } finally {
        child.destroyForcibly();
      }
      long effectsAtKill = server.stats().effects();
      assertThat(effectsAtKill).as("killed part-way").isLessThan(INTENTS);

      LoadCli resume = LoadCli.main(LoadCli.args("resume", target, store, "--concurrency", "8"));

      assertThat(resume.exitCode).as(resume.stderr).isZero();
      assertThat(resume.report().get("completed").asInt()).isEqualTo(INTENTS);
      ServerStats stats = server.stats();
      assertThat(stats.effects()).isEqualTo(INTENTS);
      assertThat(stats.duplicates()).isZero();
      assertThat(stats.effectsPerOrder()).hasSize(INTENTS);
    }
  }

  /** Reads progress lines until one reports at least {@code atLeast} completed intents. */
  private static int awaitCompleted(BufferedReader stderr, int atLeast) {
    try {
      for (String line = stderr.readLine(); line != null; line = stderr.readLine()) {
        Matcher m = COMPLETED.matcher(line);
        if (m.find() && Integer.parseInt(m.group(1)) >= atLeast) {
          return Integer.parseInt(m.group(1));
        }
      }
      throw new AssertionError("the child ended before completing " + atLeast + " intents");
    } catch (IOException e) {
      throw new AssertionError("cannot read the child's progress", e);
    }
  }

  private static String java() {
    return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static String classPath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }
}
