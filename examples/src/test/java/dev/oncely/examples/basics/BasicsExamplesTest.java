package dev.oncely.examples.basics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/** Every small example runs to its end against its own reference server and shows its point. */
@Isolated("replaces System.out while an example runs")
class BasicsExamplesTest {
  private static final String[] NO_ARGS = {};

  /** An example's {@code main}. */
  private interface Example {
    void main(String[] args) throws Exception;
  }

  private static String printed(Example example) throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      example.main(NO_ARGS);
    } finally {
      System.setOut(original);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void interceptor_keeps_one_key_per_call_so_lost_answers_cause_no_duplicate() throws Exception {
    assertThat(printed(InterceptorExample::main))
        .contains("payments on the server: 20, duplicates: 0");
  }

  @Test
  void durable_intent_is_answered_from_the_store_the_second_time() throws Exception {
    assertThat(printed(DurableIntentExample::main))
        .contains("completed")
        .contains("again: COMPLETED; payments on the server: 1");
  }

  @Test
  void pending_intent_is_finished_after_a_restart_with_one_payment() throws Exception {
    assertThat(printed(RestartAndResumeExample::main))
        .contains("before the restart: PENDING")
        .contains("after the restart: COMPLETED")
        .contains("payments on the server: 1, duplicates: 0");
  }

  @Test
  void custom_dialect_reports_a_reused_key_as_a_key_conflict() throws Exception {
    assertThat(printed(CustomDialectExample::main))
        .contains("first charge: COMPLETED")
        .contains("same key, other amount: KEY_CONFLICT (server said 400)")
        .contains("payments on the server: 1");
  }

  @Test
  void outcomes_example_shows_a_completed_and_a_rejected_intent() throws Exception {
    assertThat(printed(OutcomesAndEventsExample::main))
        .contains("=> completed with 20")
        .contains("=> rejected by the server with 400")
        .contains("events: EventCounter{");
  }
}
