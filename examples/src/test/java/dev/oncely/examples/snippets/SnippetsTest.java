package dev.oncely.examples.snippets;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Runs each small example's {@code main} in this JVM (each starts its own reference server) and
 * checks what it printed: the example finished and the server saw exactly one payment per intent.
 */
@Isolated("replaces System.out while an example runs")
class SnippetsTest {
  @FunctionalInterface
  private interface MainMethod {
    void run(String[] args) throws Exception;
  }

  private static String runMain(MainMethod main) throws Exception {
    PrintStream saved = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      main.run(new String[0]);
    } finally {
      System.setOut(saved);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void token_refresh_example_pays_once_after_its_authenticator_renews_the_token()
      throws Exception {
    String out = runMain(TokenRefreshExample::main);
    assertThat(out).contains("answer: 201").contains("token refreshes: 1")
        .contains("payments created: 1");
  }

  @Test
  void interceptor_example_pays_once_through_dropped_answers() throws Exception {
    String out = runMain(InterceptorExample::main);
    assertThat(out).contains("answer: 201").contains("payments created: 1");
  }

  @Test
  void retrofit_example_pays_once_answers_the_restart_from_the_store_and_refuses_a_changed_body()
      throws Exception {
    String out = runMain(RetrofitExample::main);
    assertThat(out)
        .contains("first call: 201")
        .contains("after a restart: 201, from the store: true")
        .contains("changed body refused: PayloadMismatchException")
        .contains("payments created: 1");
  }

  @Test
  void durable_intent_example_answers_the_repeat_from_the_store_without_requests()
      throws Exception {
    String out = runMain(DurableIntentExample::main);
    assertThat(out)
        .contains("first ask:  completed with 201")
        .contains("second ask: completed with 201")
        .contains("requests sent: 0")
        .contains("payments created: 1");
  }

  @Test
  void restart_resume_example_finishes_the_unknown_payment_after_a_restart() throws Exception {
    String out = runMain(RestartResumeExample::main);
    assertThat(out)
        .contains("process 1: outcome unknown (ATTEMPTS_EXHAUSTED)")
        .contains("process 2: completed with 201")
        .contains("payments created: 1");
  }

  @Test
  void custom_dialect_example_sees_the_replay_and_the_key_conflict() throws Exception {
    String out = runMain(CustomDialectExample::main);
    assertThat(out)
        .contains("checkout pays:          completed with 201")
        .contains("worker, same key:       completed with 201 (replayed)")
        .contains("other amount, same key: key conflict (400)")
        .contains("checkout refuses it locally: PayloadMismatchException")
        .contains("payments created: 1");
  }

  @Test
  void outcomes_and_events_example_pays_five_and_reports_the_invalid_one_as_rejected()
      throws Exception {
    String out = runMain(OutcomesAndEventsExample::main);
    assertThat(out).contains("5 completed, 1 rejected").contains("payments created: 5");
    assertThat(out.lines().filter(l -> l.contains(": paid ("))).hasSize(5);
    assertThat(out.lines().filter(l -> l.contains(": refused (400), tell the customer")))
        .hasSize(1);
  }
}
