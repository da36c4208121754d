package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerDialect;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The conformance check against the examples' reference server in three configurations: what it
 * reports must match what the server is documented to do, and it must create no duplicate.
 */
class ConformanceReferenceServerTest {
  private static final String BODY = "{\"amount\":1200,\"currency\":\"EUR\",\"customer\":\"c-1\"}";

  private static CliRun probe(ReferenceServer server, String... extra) {
    String[] args = new String[4 + extra.length];
    args[0] = "conformance";
    args[1] = server.baseUrl() + "payments";
    args[2] = "--body";
    args[3] = BODY;
    System.arraycopy(extra, 0, args, 4, extra.length);
    return CliRun.of(Clock.systemUTC(), args);
  }

  @Test
  void ietf_reference_server_replays_marks_and_answers_422_for_another_body() {
    try (ReferenceServer server = ReferenceServer.builder().build().start()) {
      CliRun run = probe(server);

      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.out())
          .contains("same key twice", "replayed byte for byte, marked Idempotent-Replayed: true")
          .contains("mismatch answered 422")
          .contains("key order", "insensitive: member order does not change the fingerprint")
          .contains("query string", "not part of the fingerprint")
          .contains(".replayHeader(\"Idempotent-Replayed\")", ".mismatchStatus(422)",
              ".quoteKey(true)")
          .contains("Dialects.ietf() fits: it reads the replay (201) as completed, the mismatch"
              + " answer (422) as a payload mismatch");
      assertThat(server.stats().duplicates()).isZero();
      assertThat(server.stats().effects()).isLessThanOrEqualTo(15);
      assertThat(run.out()).contains(server.stats().effects() + " test effects created");
    }
  }

  @Test
  void stripe_reference_server_gets_a_body_classifier_for_its_400_mismatch() {
    try (ReferenceServer server = ReferenceServer.builder().dialect(ServerDialect.STRIPE).build()
        .start()) {
      CliRun run = probe(server, "--dialect", "stripe");

      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.out()).contains("mismatch answered 400", ".quoteKey(false)",
          "contains(\"idempotency_error\")", "Verdict.PAYLOAD_MISMATCH",
          "Dialects.stripe() fits: it reads the replay (201) as completed, the mismatch answer"
              + " (400) as a payload mismatch");
      assertThat(server.stats().duplicates()).isZero();
    }
  }

  @Test
  void slow_reference_server_answers_202_and_replays_it_with_location_and_retry_after() {
    try (ReferenceServer server = ReferenceServer.builder().slowShare(1.0)
        .slowFor(Duration.ofMillis(300)).retryAfterSeconds(1).build().start()) {
      CliRun run = probe(server);

      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.out())
          .contains("202 -> 202", "replayed byte for byte, marked Idempotent-Replayed: true")
          .contains("the repeat keeps Location, keeps Retry-After")
          .contains(".mismatchStatus(422)")
          .contains("Dialects.ietf() fits: it reads the replay (202) as accepted, the mismatch"
              + " answer (422) as a payload mismatch");
      assertThat(server.stats().duplicates()).isZero();
      assertThat(server.stats().status202()).isPositive();
    }
  }
}
