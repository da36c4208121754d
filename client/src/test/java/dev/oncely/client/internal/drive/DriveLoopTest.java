package dev.oncely.client.internal.drive;

import static dev.oncely.client.IntentState.COMPLETED;
import static dev.oncely.client.IntentState.KEY_CONFLICT;
import static dev.oncely.client.IntentState.NEEDS_RECONCILIATION;
import static dev.oncely.client.IntentState.PENDING;
import static dev.oncely.client.IntentState.REJECTED;
import static dev.oncely.client.PendingReason.AMBIGUOUS_ANSWER;
import static dev.oncely.client.PendingReason.ATTEMPTS_EXHAUSTED;
import static dev.oncely.client.PendingReason.DEADLINE_EXCEEDED;
import static dev.oncely.client.PendingReason.DRIVEN_ELSEWHERE;
import static dev.oncely.client.PendingReason.INTERRUPTED;
import static dev.oncely.client.PendingReason.KEY_IN_USE;
import static dev.oncely.client.PendingReason.NO_STATUS_URL;
import static dev.oncely.client.PendingReason.OFFLINE;
import static dev.oncely.client.PendingReason.RETRY_BUDGET_EXHAUSTED;
import static dev.oncely.client.PendingReason.STILL_PROCESSING;
import static dev.oncely.client.internal.drive.DriveEnd.Kind.LOST;
import static dev.oncely.client.internal.drive.DriveEnd.Kind.PARKED;
import static dev.oncely.client.internal.drive.DriveEnd.Kind.RECONCILE;
import static dev.oncely.client.internal.drive.DriveEnd.Kind.SETTLED;
import static dev.oncely.client.internal.drive.DriveFixture.POLICY;
import static dev.oncely.client.internal.drive.DriveFixture.T0;
import static dev.oncely.client.internal.drive.ScriptedWire.failedBeforeHandOff;
import static dev.oncely.client.internal.drive.ScriptedWire.refusedBeforeWrite;
import static dev.oncely.client.internal.drive.ScriptedWire.status;
import static dev.oncely.client.internal.drive.ScriptedWire.timeoutAfterWrite;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.NetworkGate;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.internal.drive.ScriptedWire.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The drive loop alone, against a {@link ScriptedWire}: each case is what the server or the network
 * answers, attempt after attempt, and how the drive must end (its kind, the stored state and
 * pending reason, the attempts sent, the waits it asked for). The loop runs as {@link DriveRun}
 * runs it, resumed after each wait it asks for, with a manual clock moved by that wait. After
 * every case the invariants of a drive are checked: every attempt carried the key pinned in the
 * record, the store holds what the drive ended with and counts every attempt sent, the
 * maybe-delivered mark is set exactly when an attempt may have reached the server, and a refusal
 * never ends an intent that an earlier attempt may have delivered.
 */
class DriveLoopTest {
  private static final String KEY = "pay-7f3a";
  private static final String STATUS_URL = "https://api.example.test/status/p-1";

  /** A network gate that stays closed: the device is offline. */
  private static final NetworkGate OFFLINE_GATE = new NetworkGate() {
    @Override
    public boolean isOpen() {
      return false;
    }

    @Override
    public void whenOpen(Runnable action) {}
  };

  /** Where a drive starts. */
  private enum Given {
    /** A new intent, just created {@code IN_FLIGHT} by the caller: that create was the claim. */
    CLAIMED_NOW(0, false),
    /** A record a crash left {@code IN_FLIGHT} after one attempt, ten minutes ago. */
    LEFT_IN_FLIGHT_BY_A_CRASH(1, true),
    /** A record a crash left {@code IN_FLIGHT} after one attempt, two hours ago. */
    LEFT_IN_FLIGHT_PAST_THE_KEY_RETENTION(1, true),
    /** A record an earlier drive parked {@code PENDING} after one attempt, 3 s of its wait owed. */
    PARKED_WITH_A_WAIT_OWED(1, true);

    final int attemptsBefore;
    final boolean maybeDeliveredBefore;

    Given(int attemptsBefore, boolean maybeDeliveredBefore) {
      this.attemptsBefore = attemptsBefore;
      this.maybeDeliveredBefore = maybeDeliveredBefore;
    }

    IntentRecord record(DriveSettings settings) {
      IntentRecord fresh = DriveFixture.candidate(settings, KEY);
      switch (this) {
        case LEFT_IN_FLIGHT_BY_A_CRASH:
          return earlier(fresh, Duration.ofMinutes(10)).state(IntentState.IN_FLIGHT)
              .nextAttemptAt(T0.minus(Duration.ofMinutes(10)).plusSeconds(2)).build();
        case LEFT_IN_FLIGHT_PAST_THE_KEY_RETENTION:
          return earlier(fresh, Duration.ofHours(2)).state(IntentState.IN_FLIGHT)
              .nextAttemptAt(T0.minus(Duration.ofHours(2)).plusSeconds(2)).build();
        case PARKED_WITH_A_WAIT_OWED:
          return earlier(fresh, Duration.ofMinutes(1)).state(IntentState.PENDING)
              .maybeDelivered(true).reason(PendingReason.INTERRUPTED.recordText("closed"))
              .nextAttemptAt(T0.plusSeconds(3)).build();
        default:
          return fresh;
      }
    }

    private static IntentRecord.Builder earlier(IntentRecord fresh, Duration ago) {
      return fresh.toBuilder().createdAt(T0.minus(ago)).updatedAt(T0.minus(ago))
          .expiresAt(T0.minus(ago).plus(DriveFixture.KEY_RETENTION)).attempts(1);
    }
  }

  /** One row of the table: a start, a script of answers, and the end it must reach. */
  private static final class Case {
    final String name;
    final List<Reply> script;
    Given given = Given.CLAIMED_NOW;
    RetryPolicy policy = POLICY;
    Supplier<RetryBudget> budget = RetryBudget::unlimited;
    NetworkGate gate = NetworkGate.ALWAYS_OPEN;
    DriveEnd.Kind kind;
    IntentState state;
    PendingReason reason;
    int sends;
    List<Duration> waits = List.of();
    List<String> lines;
    String pollUrl;
    String stopDuringFirstWait;
    Duration dueAfter;

    Case(String name, Reply... script) {
      this.name = name;
      this.script = Arrays.asList(script);
    }

    Case given(Given given) {
      this.given = given;
      return this;
    }

    Case policy(RetryPolicy policy) {
      this.policy = policy;
      return this;
    }

    Case budget(Supplier<RetryBudget> budget) {
      this.budget = budget;
      return this;
    }

    Case gate(NetworkGate gate) {
      this.gate = gate;
      return this;
    }

    Case ends(DriveEnd.Kind kind, IntentState state) {
      this.kind = kind;
      this.state = state;
      return this;
    }

    /** Parked {@code PENDING} for {@code reason}. */
    Case pending(PendingReason reason) {
      this.kind = PARKED;
      this.state = PENDING;
      this.reason = reason;
      return this;
    }

    Case sends(int sends) {
      this.sends = sends;
      return this;
    }

    Case waitsMillis(long... millis) {
      this.waits = Arrays.stream(millis).mapToObj(Duration::ofMillis).toList();
      return this;
    }

    /** The attempts as "METHOD path", in order. */
    Case exchanges(String... lines) {
      this.lines = List.of(lines);
      return this;
    }

    /** The owner stops the drive ({@link DriveLoop#stop}) during its first wait. */
    Case stopDuringFirstWait(String why) {
      this.stopDuringFirstWait = why;
      return this;
    }

    /** The record is due again this long after the drive started. */
    Case dueAfterMillis(long millis) {
      this.dueAfter = Duration.ofMillis(millis);
      return this;
    }

    /** The status URL the record keeps for the next drive to poll. */
    Case keepsPollUrl(String pollUrl) {
      this.pollUrl = pollUrl;
      return this;
    }
  }

  private static Case drive(String name, Reply... script) {
    return new Case(name, script);
  }

  private static Stream<Case> table() {
    return Stream.of(
        drive("a_2xx_to_the_first_attempt_completes_the_intent", status(201))
            .ends(SETTLED, COMPLETED).sends(1),
        drive("a_business_4xx_to_a_first_delivery_rejects_the_intent", status(400))
            .ends(SETTLED, REJECTED).sends(1),
        drive("a_timeout_after_the_body_was_written_then_a_2xx_completes_under_the_same_key",
            timeoutAfterWrite(), status(201))
            .ends(SETTLED, COMPLETED).sends(2).waitsMillis(100),
        drive("a_timeout_after_the_body_was_written_on_every_attempt_ends_pending_never_failed",
            timeoutAfterWrite(), timeoutAfterWrite(), timeoutAfterWrite(), timeoutAfterWrite())
            .pending(ATTEMPTS_EXHAUSTED).sends(4).waitsMillis(100, 200, 400),
        drive("a_business_4xx_after_a_timeout_after_write_is_resent_then_ends_pending_ambiguous",
            timeoutAfterWrite(), status(400), status(400), status(400))
            .pending(AMBIGUOUS_ANSWER).sends(4).waitsMillis(100, 200, 400),
        drive("a_refused_connection_proves_nothing_was_sent_so_a_4xx_after_it_still_rejects",
            refusedBeforeWrite(), status(400))
            .ends(SETTLED, REJECTED).sends(2).waitsMillis(100),
        drive("a_failure_before_the_request_reached_the_http_client_is_resent",
            failedBeforeHandOff(), status(201))
            .ends(SETTLED, COMPLETED).sends(2).waitsMillis(100),
        drive("a_409_in_progress_is_waited_out_and_the_2xx_after_it_completes",
            status(409), status(409), status(201))
            .ends(SETTLED, COMPLETED).sends(3).waitsMillis(100, 200),
        drive("a_409_in_progress_until_the_attempts_run_out_ends_pending_key_in_use",
            status(409), status(409), status(409), status(409))
            .pending(KEY_IN_USE).sends(4).waitsMillis(100, 200, 400),
        drive("a_422_to_a_first_delivery_is_a_key_conflict", status(422))
            .ends(SETTLED, KEY_CONFLICT).sends(1),
        drive("a_422_to_a_resend_after_a_timeout_after_write_needs_reconciliation",
            timeoutAfterWrite(), status(422))
            .ends(SETTLED, NEEDS_RECONCILIATION).sends(2).waitsMillis(100),
        drive("a_202_is_polled_at_its_location_until_the_status_url_says_done",
            status(202, "Location", "/status/p-1"), status(202), status(200))
            .ends(SETTLED, COMPLETED).sends(3).waitsMillis(100, 200)
            .exchanges("POST /payments", "GET /status/p-1", "GET /status/p-1"),
        drive("a_202_polled_until_the_attempts_run_out_ends_pending_still_processing",
            status(202, "Location", "/status/p-1"), status(202), status(202), status(202))
            .pending(STILL_PROCESSING).sends(4).waitsMillis(100, 200, 400)
            .keepsPollUrl(STATUS_URL),
        drive("a_status_url_answering_404_resends_the_submit_under_the_same_key",
            status(202, "Location", "/status/p-1"), status(404), status(201))
            .ends(SETTLED, COMPLETED).sends(3).waitsMillis(100, 200)
            .exchanges("POST /payments", "GET /status/p-1", "POST /payments"),
        drive("a_202_without_a_status_url_is_resent_a_bounded_number_of_times_then_ends_pending",
            status(202), status(202), status(202), status(202))
            .pending(NO_STATUS_URL).sends(4).waitsMillis(100, 200, 400).dueAfterMillis(5_700),
        drive("a_5xx_is_resent_under_the_same_key_until_a_2xx",
            status(503), status(500), status(201))
            .ends(SETTLED, COMPLETED).sends(3).waitsMillis(100, 200),
        drive("a_429_with_retry_after_waits_as_long_as_the_server_asked",
            status(429, "Retry-After", "3"), status(201))
            .ends(SETTLED, COMPLETED).sends(2).waitsMillis(3_000),
        drive("a_retry_after_longer_than_the_policy_cap_is_cut_to_the_cap",
            status(503, "Retry-After", "60"), status(201))
            .ends(SETTLED, COMPLETED).sends(2).waitsMillis(5_000),
        drive("a_wait_that_would_outlast_the_deadline_ends_pending_deadline_exceeded",
            status(503, "Retry-After", "5"), status(503, "Retry-After", "5"))
            .policy(POLICY.toBuilder().deadline(Duration.ofSeconds(8)).build())
            .pending(DEADLINE_EXCEEDED).sends(2).waitsMillis(5_000).dueAfterMillis(10_000),
        drive("the_retry_budget_refusing_a_resend_ends_pending_budget_exhausted",
            status(503), status(503))
            .budget(() -> RetryBudget.builder().capacity(5).retryCost(5).refillPerSecond(0)
                .build())
            .pending(RETRY_BUDGET_EXHAUSTED).sends(2).waitsMillis(100),
        drive("a_307_within_the_origin_is_resent_there_with_the_same_key_and_bytes",
            status(307, "Location", "/v2/payments"), status(201))
            .ends(SETTLED, COMPLETED).sends(2).waitsMillis(100)
            .exchanges("POST /payments", "POST /v2/payments"),
        drive("a_302_to_the_submit_is_not_followed_and_needs_reconciliation",
            status(302, "Location", "/receipts/r-1"))
            .ends(SETTLED, NEEDS_RECONCILIATION).sends(1),
        drive("a_lost_compare_and_set_ends_lost_without_another_send",
            status(503).whileSent(ScriptedWire::anotherWriterChangesTheRecord))
            .ends(LOST, PENDING).sends(1),
        drive("a_stop_from_the_wire_ends_pending_interrupted_without_another_send",
            status(503).whileSent(wire -> wire.stop("the call was canceled")))
            .pending(INTERRUPTED).sends(1),
        drive("a_stop_during_a_retry_wait_ends_pending_interrupted_due_when_the_wait_ends",
            status(503))
            .stopDuringFirstWait("the client was closed")
            .pending(INTERRUPTED).sends(1).waitsMillis(100).dueAfterMillis(100),
        drive("a_stop_during_an_attempt_that_timed_out_ends_pending_interrupted",
            timeoutAfterWrite().whileSent(wire -> wire.stop("the call was canceled")))
            .pending(INTERRUPTED).sends(1),
        drive("a_network_gate_closed_until_the_deadline_ends_pending_offline_with_nothing_sent")
            .gate(OFFLINE_GATE)
            .pending(OFFLINE).sends(0).waitsMillis(30_000),
        drive("a_resume_of_a_record_a_crash_left_in_flight_takes_a_4xx_as_ambiguous",
            status(400), status(400), status(400))
            .given(Given.LEFT_IN_FLIGHT_BY_A_CRASH)
            .pending(AMBIGUOUS_ANSWER).sends(3).waitsMillis(100, 200),
        drive("a_record_a_crash_left_in_flight_past_the_key_retention_is_never_resent")
            .given(Given.LEFT_IN_FLIGHT_PAST_THE_KEY_RETENTION)
            .ends(RECONCILE, NEEDS_RECONCILIATION).sends(0),
        drive("a_resume_waits_out_what_the_last_drive_left_owed_before_its_first_attempt",
            status(201))
            .given(Given.PARKED_WITH_A_WAIT_OWED)
            .ends(SETTLED, COMPLETED).sends(1).waitsMillis(3_000));
  }

  @TestFactory
  Stream<DynamicTest> every_script_of_answers_ends_the_drive_as_the_table_says() {
    return table().map(c -> DynamicTest.dynamicTest(c.name, () -> {
      try {
        check(c);
      } catch (AssertionError e) {
        // Surefire's report names a dynamic test by its index: name the case in the failure.
        throw new AssertionError(c.name + ": " + e.getMessage(), e);
      }
    }));
  }

  /** What one drive did. */
  private record Run(DriveEnd end, IntentRecord stored, List<Duration> waits, ScriptedWire wire,
      List<IntentEvent> events, IntentRecord start) {}

  private static Run run(Case c) {
    DriveFixture f = new DriveFixture();
    DriveSettings settings = f.settings(c.policy, c.budget.get(), c.gate, f.events::add);
    IntentRecord record = c.given.record(settings);
    f.store.create(record);
    ScriptedWire wire = ScriptedWire.answering(c.script.toArray(Reply[]::new))
        .writingTo(f.store);
    DriveLoop loop = DriveLoop.of(settings, wire, record, c.given == Given.CLAIMED_NOW, false);
    List<Duration> waits = new ArrayList<>();
    DriveLoop.Next next = loop.start();
    while (!(next instanceof DriveLoop.Ended)) {
      assertThat(waits).as("waits of one drive").hasSizeLessThan(20);
      Duration delay = next instanceof DriveLoop.Wait wait ? wait.delay()
          : ((DriveLoop.WaitForGate) next).limit();
      waits.add(delay);
      if (c.stopDuringFirstWait != null) {
        next = new DriveLoop.Ended(loop.stop(c.stopDuringFirstWait));
        break;
      }
      f.clock.advance(delay);
      next = loop.resume();
    }
    DriveEnd end = ((DriveLoop.Ended) next).end();
    return new Run(end, f.store.get(record.id()).orElseThrow(), waits, wire, f.events, record);
  }

  private static void check(Case c) {
    Run run = run(c);
    DriveEnd end = run.end();
    IntentRecord stored = run.stored();
    List<ScriptedWire.Attempt> attempts = run.wire().attempts();

    assertThat(end.kind()).as("how the drive ended").isEqualTo(c.kind);
    assertThat(stored.state()).as("stored state").isEqualTo(c.state);
    assertThat(end.record().state()).as("state the end reports").isEqualTo(c.state);
    if (c.reason != null) {
      assertThat(end.reason()).as("pending reason").isEqualTo(c.reason);
      assertThat(stored.reason()).as("stored reason").startsWith(c.reason.name() + ":");
    }
    if (c.kind == LOST) {
      assertThat(end.reason()).isEqualTo(DRIVEN_ELSEWHERE);
    }
    assertThat(attempts).as("attempts sent").hasSize(c.sends);
    assertThat(run.wire().unused()).as("replies left in the script").isZero();
    assertThat(run.waits()).as("waits asked").isEqualTo(c.waits);
    if (c.lines != null) {
      assertThat(attempts).extracting(a -> a.line("POST")).as("exchanges")
          .isEqualTo(c.lines);
    }
    if (c.dueAfter != null) {
      assertThat(stored.nextAttemptAt()).as("due again").isEqualTo(T0.plus(c.dueAfter));
    }
    if (c.pollUrl != null) {
      assertThat(stored.pollUrl()).as("status URL kept for the next drive").isEqualTo(c.pollUrl);
    }
    checkInvariants(c, run);
  }

  /** What every drive must show, whatever its script. */
  private static void checkInvariants(Case c, Run run) {
    IntentRecord stored = run.stored();
    List<ScriptedWire.Attempt> attempts = run.wire().attempts();
    List<Answer> answers = run.wire().answers();

    assertThat(attempts).as("every attempt carries the key pinned at creation")
        .allSatisfy(a -> {
          assertThat(a.id()).isEqualTo(run.start().id());
          assertThat(a.keyHeader()).isEqualTo("Idempotency-Key");
          assertThat(a.keyValue()).isEqualTo("\"" + KEY + "\"");
          assertThat(a.timeoutMillis()).isBetween(1L, c.policy.attemptTimeout().toMillis());
        });
    assertThat(run.events().stream().filter(IntentEvent.AttemptStarted.class::isInstance))
        .as("every attempt on the wire is announced").hasSize(attempts.size());
    assertThat(run.events().stream().filter(IntentEvent.AttemptEnded.class::isInstance))
        .as("every attempt's end is announced").hasSize(attempts.size());
    if (c.kind == LOST) {
      assertThat(run.end().record()).as("a lost drive reports what the store holds now")
          .isEqualTo(stored);
      return;
    }
    assertThat(stored).as("the store holds the record the drive ended with")
        .isEqualTo(run.end().record());
    assertThat(stored.state()).as("a drive never ends leaving the record in flight")
        .isNotEqualTo(IntentState.IN_FLIGHT);
    assertThat(stored.attempts()).as("the stored count is every attempt ever sent")
        .isEqualTo(c.given.attemptsBefore + attempts.size());
    boolean mayHaveReached = c.given.maybeDeliveredBefore
        || answers.stream().anyMatch(a -> !a.provablyUnsent());
    assertThat(stored.maybeDelivered())
        .as("marked maybe delivered exactly when an attempt may have reached the server")
        .isEqualTo(mayHaveReached);
    if (stored.state() == REJECTED || stored.state() == KEY_CONFLICT) {
      boolean deliveredBeforeTheRefusal = c.given.maybeDeliveredBefore
          || answers.subList(0, answers.size() - 1).stream().anyMatch(a -> !a.provablyUnsent());
      assertThat(deliveredBeforeTheRefusal)
          .as("a refusal never ends an intent an earlier attempt may have delivered")
          .isFalse();
    }
  }
}
