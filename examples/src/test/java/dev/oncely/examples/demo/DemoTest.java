package dev.oncely.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The whole demo at a small size, end to end: the load driver runs in a real child JVM, is killed
 * with SIGKILL part-way, and a second child resumes from the durable store; then the naive client
 * runs the same workload. Seeded, so the faults are the same on every run for the same arrival
 * order.
 */
class DemoTest {
  @Test
  void sdk_pays_every_intent_exactly_once_across_a_sigkill_while_naive_retries_charge_twice()
      throws InterruptedException {
    DemoSettings settings = DemoSettings.builder()
        .intents(200)
        .concurrency(8)
        .seed(42)
        .classPath(System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path")))
        .build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Demo demo = new Demo(settings,
        new ProgressBar(new PrintStream(err, true, StandardCharsets.UTF_8), false));

    int code = demo.run(new PrintStream(out, true, StandardCharsets.UTF_8));

    assertThat(code).as("exit code; progress:%n%s", err).isZero();
    RunSummary sdk = demo.sdkResult();
    assertThat(sdk.killedAt()).isGreaterThanOrEqualTo(settings.killAfter()).isLessThan(200);
    assertThat(sdk.duplicates()).isZero();
    assertThat(sdk.lost()).isZero();
    assertThat(sdk.effects()).isEqualTo(200);
    assertThat(sdk.completed()).isEqualTo(200);
    assertThat(sdk.retries()).isPositive();

    RunSummary interceptor = demo.interceptorResult();
    assertThat(interceptor.duplicates()).isZero();
    assertThat(interceptor.lost()).isZero();
    assertThat(interceptor.effects()).isEqualTo(200);
    assertThat(interceptor.completed()).isEqualTo(200);

    RunSummary naive = demo.naiveResult();
    assertThat(naive.duplicates()).isPositive();
    assertThat(naive.effects()).isEqualTo(200 - naive.lost() + naive.duplicates());

    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("duplicate charges")
        .contains("Oncely: every intent paid exactly once across a SIGKILL");
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("SIGKILL (pid ");
  }
}
