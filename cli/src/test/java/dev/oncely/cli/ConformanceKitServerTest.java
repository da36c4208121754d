package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.FingerprintRule;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.MismatchAnswer;
import dev.oncely.testing.ServerErrors;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance check against the oncely-testing kit's server in each of its configurations:
 * for every way the kit can differ, the report must say what the kit was configured to do, the
 * dialect code must fit it, and the run must stay within its stated effect budget.
 */
class ConformanceKitServerTest {
  private static final String BODY = "{\"amount\":1200,\"currency\":\"EUR\",\"customer\":\"c-1\"}";
  private static final String HOOK = "X-Oncely-Test-Fail";

  /** The kit's documented test hook for this test: a request with {@value #HOOK} gets a 500. */
  private static FaultScript.Builder hooked() {
    return FaultScript.builder()
        .rule((request, n) -> request.has(HOOK) ? Fault.handlerError(500) : null);
  }

  static Stream<Arguments> configurations() {
    return Stream.of(
        config("defaults (IETF mismatch, exact bytes, 5xx re-executed)", b -> b,
            List.of("--server-error-header", HOOK + ": 500"),
            "replayed byte for byte, marked Idempotent-Replayed: true",
            "mismatch answered 422",
            "sensitive (the bytes are fingerprinted",
            "not part of the fingerprint",
            "re-executed: the key was released after the error",
            ".mismatchStatus(422)", ".replayHeader(\"Idempotent-Replayed\")"),
        config("Stripe mismatch answer", b -> b.mismatch(MismatchAnswer.stripe()),
            List.of("--dialect", "stripe"),
            "mismatch answered 400", "contains(\"idempotency_error\")", ".quoteKey(false)",
            "Dialects.stripe() fits: it reads the replay (201) as completed, the mismatch answer"
                + " (400) as a payload mismatch"),
        config("mismatch 409, the in-progress status too",
            b -> b.mismatch(MismatchAnswer.status(409)), List.of(),
            "mismatch answered 409", ".classifier(response -> response.status() == 409",
            "Dialects.ietf() does NOT fit: it reads the mismatch answer (409) as IN_PROGRESS"),
        config("5xx replayed", b -> b.serverErrors(ServerErrors.REPLAYED)
                .faults(hooked().build()),
            List.of("--server-error-header", HOOK + ": 500"),
            "500 -> 500", "replayed the error",
            "Dialects.ietf() does NOT fit: it reads the replayed 500 as RETRY"),
        config("JSON fingerprint in any key order",
            b -> b.fingerprint(FingerprintRule.JSON_ANY_KEY_ORDER), List.of(),
            "insensitive: member order does not change the fingerprint"),
        config("no fingerprint", b -> b.fingerprint(FingerprintRule.NONE), List.of(),
            "the body is not checked", "// mismatch status not established",
            "Dialects.ietf() fit not established: no mismatch answer was seen."),
        config("query string fingerprinted", b -> b.fingerprintQuery(true), List.of(),
            "part of the fingerprint: answered 422"),
        config("keys up to 64 characters", b -> b.maxKeyLength(64), List.of(),
            "64 accepted, 255 refused", "RISK: keys of 255 characters are refused"),
        config("asynchronous, Location kept", b -> b.asynchronous(true), List.of(),
            "202 replay keeps Location", "the repeat keeps Location"),
        config("asynchronous, Location lost on replay",
            b -> b.asynchronous(true).locationOnReplay(false), List.of(),
            "RISK: the repeat LOSES Location"),
        config("slow processing, 425 without Retry-After",
            b -> b.inProgressStatus(425).retryAfterSeconds(-1)
                .faults(hooked().rule((r, n) -> n == 1 && !r.has(HOOK)
                    ? Fault.processingSlowly(1) : null).build()),
            List.of(),
            IF_OVERLAP + "the second got 425 without Retry-After",
            IF_OVERLAP + ".inProgressStatus(425)",
            "202 -> 201", "the 202 answers carried no Location"));
  }

  /** Marks an expected line that holds only when the two in-flight requests overlapped. */
  private static final String IF_OVERLAP = "if-overlap:";

  private static Arguments config(String name, UnaryOperator<IdempotentServer.Builder> setup,
      List<String> options, String... expected) {
    return Arguments.of(name, setup, options, List.of(expected));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void the_report_says_what_the_kit_was_configured_to_do(String name,
      UnaryOperator<IdempotentServer.Builder> setup, List<String> options, List<String> expected)
      throws Exception {
    IdempotentServer kit = setup.apply(IdempotentServer.builder().faults(hooked().build())).build();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(kit);
      server.start();
      List<String> args = new ArrayList<>(List.of("conformance",
          server.url("/payments").toString(), "--body", BODY));
      args.addAll(options);

      CliRun run = CliRun.of(Clock.systemUTC(), args.toArray(String[]::new));

      // The duplicate-in-flight probe races two requests; on a loaded machine they may not
      // overlap, and the report then says so instead of naming the in-progress answer.
      boolean overlapped = !run.out().contains("no overlap observed");
      for (String line : expected) {
        if (!line.startsWith(IF_OVERLAP)) {
          assertThat(run.out()).as(run.toString()).contains(line);
        } else if (overlapped) {
          assertThat(run.out()).as(run.toString()).contains(line.substring(IF_OVERLAP.length()));
        }
      }
      assertThat(kit.ledger().size()).isLessThanOrEqualTo(15);
      assertThat(run.out()).contains(kit.ledger().size() + " test effects created");
      assertThat(kit.ledger().duplicates()).isEmpty();
    }
  }
}
