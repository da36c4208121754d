package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.MismatchAnswer;
import dev.oncely.testing.ServerErrors;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Server behaviours and the findings the conformance check must report for them: every probe's
 * verdict and risk flag, and the exit code. A server the docs call acceptable is never flagged (a
 * tool users run against their providers must not cry wolf), and each real risk is.
 */
class ConformanceFindingsTest {
  private static final String BODY = "{\"amount\":1200,\"currency\":\"EUR\",\"customer\":\"c-1\"}";
  private static final String HOOK = "X-Oncely-Test-Fail";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String REPLAYED = "replayed byte for byte, marked Idempotent-Replayed: true";
  private static final String NO_OVERLAP = "no overlap observed: one was served as a replay";
  private static final String SECOND_GOT_409 = "the second got 409 with Retry-After 1";
  private static final String MISMATCH_422 = "mismatch answered 422 {\"type\":";
  private static final String ORDER_422 =
      "sensitive (the bytes are fingerprinted; Oncely resends the same bytes): answered 422";
  private static final String QUERY_IGNORED = "not part of the fingerprint";
  private static final String KEYS_FIT = "keys of 256 characters are refused; Oncely's keys (32"
      + " characters, at most 255) fit";
  private static final String RE_EXECUTED =
      "re-executed: the key was released after the error (a retry is safe)";
  private static final String SYNCHRONOUS =
      "not probed: no request was answered 202 (the server answered synchronously)";

  /** One probe's expected verdict (it starts with one of {@code verdicts}) and risk flag. */
  record Expected(boolean risk, List<String> verdicts) {}

  private static Expected ok(String... verdicts) {
    return new Expected(false, List.of(verdicts));
  }

  private static Expected risk(String... verdicts) {
    return new Expected(true, List.of(verdicts));
  }

  /** The request that gets a handler 5xx: the kit's documented test hook. */
  private static FaultScript hooked() {
    return FaultScript.builder()
        .rule((request, n) -> request.has(HOOK) ? Fault.handlerError(500) : null).build();
  }

  /** A row: a server behaviour, the CLI options, the exit code and every probe's finding. */
  private static Arguments row(String behaviour, UnaryOperator<IdempotentServer.Builder> server,
      List<String> options, int exit, Expected replay, Expected inFlight, Expected anotherBody,
      Expected keyOrder, Expected query, Expected keyLength, Expected serverError,
      Expected acceptedReplay) {
    Map<String, Expected> findings = new LinkedHashMap<>();
    findings.put("same key twice", replay);
    findings.put("duplicate in flight", inFlight);
    findings.put("same key, another body", anotherBody);
    findings.put("key order", keyOrder);
    findings.put("query string", query);
    findings.put("key length", keyLength);
    findings.put("5xx from the handler", serverError);
    findings.put("202 replay keeps Location", acceptedReplay);
    List<String> args = new ArrayList<>(List.of("--server-error-header", HOOK + ": 500"));
    args.addAll(options);
    return Arguments.of(behaviour, server, args, exit, findings);
  }

  static Stream<Arguments> behaviours() {
    return Stream.of(
        row("a correct IETF draft server", b -> b, List.of(), OncelyCli.EXIT_OK,
            ok(REPLAYED), ok(NO_OVERLAP, SECOND_GOT_409), ok(MISMATCH_422), ok(ORDER_422),
            ok(QUERY_IGNORED), ok(KEYS_FIT), ok(RE_EXECUTED), ok(SYNCHRONOUS)),
        row("a correct Stripe-style server (400 idempotency_error, replays a handler's 5xx)",
            b -> b.mismatch(MismatchAnswer.stripe()).serverErrors(ServerErrors.REPLAYED),
            List.of("--dialect", "stripe"), OncelyCli.EXIT_OK,
            ok(REPLAYED), ok(NO_OVERLAP, SECOND_GOT_409),
            ok("mismatch answered 400 {\"error\":{\"type\":\"idempotency_error\""),
            ok("sensitive (the bytes are fingerprinted; Oncely resends the same bytes):"
                + " answered 400"),
            ok(QUERY_IGNORED), ok(KEYS_FIT),
            ok("replayed the error (marked Idempotent-Replayed): Oncely sends it to"
                + " reconciliation"),
            ok(SYNCHRONOUS)),
        row("202 + Location, and its replay keeps them", b -> b.asynchronous(true), List.of(),
            OncelyCli.EXIT_OK,
            ok(REPLAYED), ok(NO_OVERLAP, SECOND_GOT_409), ok(MISMATCH_422), ok(ORDER_422),
            ok(QUERY_IGNORED), ok(KEYS_FIT), ok(RE_EXECUTED),
            ok("the repeat keeps Location, keeps Retry-After")),
        row("202 + Location, then 409 + Retry-After while the operation runs",
            b -> b.asynchronous(true).inProgressWhileAccepted(true)
                .completeAfter(Duration.ofMillis(300)),
            List.of(), OncelyCli.EXIT_OK,
            ok("the repeat after processing got the result, marked Idempotent-Replayed: true"),
            ok(SECOND_GOT_409, NO_OVERLAP), ok(MISMATCH_422), ok(ORDER_422), ok(QUERY_IGNORED),
            ok(KEYS_FIT), ok(RE_EXECUTED),
            ok("not established: the repeat got the result once the operation finished after"
                + " 409 (in progress, with Retry-After) while it ran; no status URL is needed"
                + " then")),
        row("202 + Location, and its replay drops Location",
            b -> b.asynchronous(true).locationOnReplay(false), List.of(), OncelyCli.EXIT_FAILURE,
            ok(REPLAYED), ok(NO_OVERLAP, SECOND_GOT_409), ok(MISMATCH_422), ok(ORDER_422),
            ok(QUERY_IGNORED), ok(KEYS_FIT), ok(RE_EXECUTED),
            risk("the repeat LOSES Location, keeps Retry-After")),
        row("a server that executes every request again (it ignores the key)",
            b -> b.keyHeader("X-Not-The-Key").acceptKeyless(true), List.of(),
            OncelyCli.EXIT_FAILURE,
            risk("SECOND EFFECT: another successful answer for the same key and body"),
            risk("SECOND EFFECT: two different successful answers for one key"),
            risk("a new effect under the same key (the server keys on more than the key)"),
            risk("a new effect under the same key"), risk("a new effect under the same key"),
            ok("no limit up to 256 characters"), ok(RE_EXECUTED), ok(SYNCHRONOUS)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("behaviours")
  void each_server_behaviour_gets_exactly_its_findings_and_exit_code(String behaviour,
      UnaryOperator<IdempotentServer.Builder> setup, List<String> options, int exit,
      Map<String, Expected> expected) throws Exception {
    IdempotentServer kit = setup.apply(IdempotentServer.builder().faults(hooked())).build();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(kit);
      server.start();
      List<String> args = new ArrayList<>(List.of("conformance",
          server.url("/payments").toString(), "--body", BODY, "--json"));
      args.addAll(options);

      CliRun run = CliRun.of(Clock.systemUTC(), args.toArray(String[]::new));

      JsonNode report = JSON.readTree(run.out());
      List<String> probes = new ArrayList<>();
      for (JsonNode finding : report.get("findings")) {
        String probe = finding.get("probe").asText();
        probes.add(probe);
        Expected want = expected.get(probe);
        String verdict = finding.get("verdict").asText();
        assertThat(verdict).as("%s: %s", probe, run)
            .satisfies(v -> assertThat(want.verdicts()).anyMatch(v::startsWith));
        assertThat(finding.get("risk").asBoolean()).as("%s is a risk: %s", probe, verdict)
            .isEqualTo(want.risk());
      }
      assertThat(probes).as("every probe, in order").containsExactlyElementsOf(expected.keySet());
      assertThat(run.exitCode()).as(run.toString()).isEqualTo(exit);
      assertThat(report.get("effects").asInt()).as("the effects the report counts")
          .isEqualTo(kit.ledger().size()).isLessThanOrEqualTo(15);
    }
  }
}
