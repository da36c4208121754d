package dev.oncely.client.internal.drive;

import static dev.oncely.client.internal.drive.ScriptedWire.status;
import static dev.oncely.client.internal.drive.ScriptedWire.timeoutAfterWrite;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.NetworkGate;
import dev.oncely.client.PayloadMismatchException;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one way into a drive: admit, lead or join, run, end. Real store, real registry and loop; the
 * wire is scripted and the waits go to a recording sleeper on a manual clock, so {@link DriveRun}
 * never arms its timer. Where two callers must meet, the first drive is held on the wire (or at
 * its last write) by a latch until the second has entered.
 */
class DriveSessionTest {
  private static final byte[] OTHER_BODY = "{\"amount\":9999,\"currency\":\"EUR\"}"
      .getBytes(StandardCharsets.UTF_8);

  private final DriveFixture f = new DriveFixture();
  private final DriveOwner owner = new DriveOwner("the test client");
  private final ExecutorService callers = Executors.newSingleThreadExecutor();

  @AfterEach
  void stopCallers() {
    callers.shutdownNow();
  }

  private DriveSession session(DriveSettings settings) {
    return new DriveSession(settings, owner);
  }

  private static DriveSession.Plan blocking(ScriptedWire wire) {
    return DriveSession.Plan.blocking(record -> wire);
  }

  private static DriveEnd endOf(CompletableFuture<DriveEnd> ended) throws Exception {
    return ended.get(5, TimeUnit.SECONDS);
  }

  @Test
  void a_new_intent_is_created_and_driven_to_its_outcome_on_the_calling_thread() throws Exception {
    DriveSettings settings = f.settings();
    IntentRecord candidate = DriveFixture.candidate(settings, "pay-1");
    ScriptedWire wire = ScriptedWire.answering(status(503), status(201));

    CompletableFuture<DriveEnd> ended = session(settings).admit(candidate, blocking(wire));

    assertThat(ended).as("a blocking plan returns once the drive ended").isDone();
    DriveEnd end = endOf(ended);
    assertThat(end.kind()).isEqualTo(DriveEnd.Kind.SETTLED);
    assertThat(end.record().state()).isEqualTo(IntentState.COMPLETED);
    assertThat(f.store.get(candidate.id()).orElseThrow()).isEqualTo(end.record());
    assertThat(wire.attempts()).hasSize(2)
        .extracting(ScriptedWire.Attempt::keyValue).containsOnly("\"pay-1\"");
    assertThat(f.sleeper.sleeps()).as("the wait went to the sleeper, not the timer")
        .containsExactly(Duration.ofMillis(100));
    assertThat(f.events).first().isEqualTo(new IntentEvent.Recorded(candidate.id()));
    assertThat(DriveRegistry.process().isDriven(f.store, candidate.id())).isFalse();
  }

  @Test
  void a_finished_record_in_the_store_answers_from_the_store_without_a_send() throws Exception {
    DriveSettings settings = f.settings();
    IntentRecord candidate = DriveFixture.candidate(settings, "pay-2");
    IntentRecord finished = candidate.toBuilder().state(IntentState.COMPLETED).attempts(1)
        .maybeDelivered(true).lastResponse(StoredResponse.of(201, Map.of(), new byte[0]))
        .build();
    f.store.create(finished);
    ScriptedWire wire = ScriptedWire.answering();
    DriveSession session = session(settings);

    DriveEnd repeat = endOf(session.admit(candidate, blocking(wire)));
    DriveEnd resumed = endOf(session.resume(candidate.id(), blocking(wire)));

    for (DriveEnd end : List.of(repeat, resumed)) {
      assertThat(end.kind()).isEqualTo(DriveEnd.Kind.SETTLED);
      assertThat(end.record()).isEqualTo(finished);
      assertThat(end.answer()).as("no attempt of this drive").isNull();
    }
    assertThat(wire.attempts()).isEmpty();
    assertThat(f.store.get(candidate.id()).orElseThrow()).isEqualTo(finished);
  }

  @Test
  void a_repeat_of_an_intent_the_session_finished_answers_from_the_store_without_a_send()
      throws Exception {
    DriveSettings settings = f.settings();
    IntentRecord candidate = DriveFixture.candidate(settings, "pay-3");
    ScriptedWire wire = ScriptedWire.answering(status(201));
    DriveSession session = session(settings);

    DriveEnd first = endOf(session.admit(candidate, blocking(wire)));
    DriveEnd repeat = endOf(session.admit(candidate, blocking(wire)));

    assertThat(wire.attempts()).hasSize(1);
    assertThat(repeat.kind()).isEqualTo(DriveEnd.Kind.SETTLED);
    assertThat(repeat.record()).isEqualTo(first.record());
    assertThat(repeat.answer()).isNull();
  }

  @Test
  void a_changed_payload_under_the_same_key_fails_with_payload_mismatch_and_sends_nothing() {
    DriveSettings settings = f.settings();
    IntentRecord stored = DriveFixture.candidate(settings, "pay-4").toBuilder()
        .state(IntentState.PENDING).attempts(1).maybeDelivered(true)
        .reason(PendingReason.DEADLINE_EXCEEDED.recordText("attempt 1 got no answer")).build();
    f.store.create(stored);
    IntentRecord changed = DriveFixture.candidate(settings, "pay-4", OTHER_BODY);
    ScriptedWire wire = ScriptedWire.answering();

    CompletableFuture<DriveEnd> ended = session(settings).admit(changed, blocking(wire));

    assertThatThrownBy(() -> endOf(ended)).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(PayloadMismatchException.class);
    assertThat(wire.attempts()).isEmpty();
    assertThat(f.store.get(stored.id()).orElseThrow()).as("the stored intent is untouched")
        .isEqualTo(stored);
    assertThat(DriveRegistry.process().isDriven(f.store, stored.id())).isFalse();
  }

  @Test
  void two_admissions_of_one_candidate_at_once_send_once_and_share_one_end() throws Exception {
    DriveSettings settings = f.settings();
    IntentRecord candidate = DriveFixture.candidate(settings, "pay-5");
    ScriptedWire wire = ScriptedWire.heldUntilReleased(status(201));
    DriveSession session = session(settings);

    Future<DriveEnd> leader = callers.submit(() -> endOf(session.admit(candidate,
        blocking(wire))));
    wire.awaitFirstAttempt();
    CompletableFuture<DriveEnd> joiner = session.admit(candidate, blocking(wire));
    assertThat(joiner).as("joined the drive on the wire, not waiting on this thread")
        .isNotDone();
    wire.release();

    DriveEnd led = leader.get(5, TimeUnit.SECONDS);
    assertThat(endOf(joiner)).isSameAs(led);
    assertThat(led.record().state()).isEqualTo(IntentState.COMPLETED);
    assertThat(wire.attempts()).hasSize(1);
  }

  @Test
  void a_changed_payload_joining_a_running_drive_is_refused_and_sends_nothing() throws Exception {
    DriveSettings settings = f.settings();
    IntentRecord candidate = DriveFixture.candidate(settings, "pay-6");
    IntentRecord changed = DriveFixture.candidate(settings, "pay-6", OTHER_BODY);
    ScriptedWire wire = ScriptedWire.heldUntilReleased(status(201));
    DriveSession session = session(settings);

    Future<DriveEnd> leader = callers.submit(() -> endOf(session.admit(candidate,
        blocking(wire))));
    wire.awaitFirstAttempt();
    CompletableFuture<DriveEnd> refused = session.admit(changed, blocking(wire));
    assertThat(refused).isCompletedExceptionally();
    assertThatThrownBy(refused::join).hasCauseInstanceOf(PayloadMismatchException.class);
    wire.release();

    assertThat(leader.get(5, TimeUnit.SECONDS).record().state())
        .isEqualTo(IntentState.COMPLETED);
    assertThat(wire.attempts()).hasSize(1);
  }

  @Test
  void a_drive_that_is_ending_is_not_joined_the_caller_waits_for_its_end_and_drives_again()
      throws Exception {
    CountDownLatch atLastWrite = new CountDownLatch(1);
    CountDownLatch letItEnd = new CountDownLatch(1);
    // Holds the first drive right after its last write: the record is PENDING, the drive ending.
    IntentListener holdAtTheEnd = event -> {
      f.events.add(event);
      if (event instanceof IntentEvent.GaveUpUnknown && atLastWrite.getCount() > 0) {
        atLastWrite.countDown();
        try {
          letItEnd.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    DriveSettings settings = f.settings(DriveFixture.POLICY.toBuilder().maxAttempts(1).build(),
        RetryBudget.unlimited(), NetworkGate.ALWAYS_OPEN, holdAtTheEnd);
    IntentRecord candidate = DriveFixture.candidate(settings, "pay-7");
    ScriptedWire wire = ScriptedWire.answering(timeoutAfterWrite(), status(201));
    DriveSession session = session(settings);

    Future<DriveEnd> first = callers.submit(() -> endOf(session.admit(candidate,
        blocking(wire))));
    assertThat(atLastWrite.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(f.store.get(candidate.id()).orElseThrow().state()).isEqualTo(IntentState.PENDING);

    CompletableFuture<DriveEnd> resumed = session.resume(candidate.id(),
        DriveSession.Plan.async(Runnable::run, record -> wire));
    assertThat(resumed).as("not joined to the drive that is only stopping").isNotDone();
    assertThat(wire.attempts()).hasSize(1);
    letItEnd.countDown();

    DriveEnd stopped = first.get(5, TimeUnit.SECONDS);
    assertThat(stopped.kind()).isEqualTo(DriveEnd.Kind.PARKED);
    assertThat(stopped.reason()).isEqualTo(PendingReason.ATTEMPTS_EXHAUSTED);
    DriveEnd drivenAgain = endOf(resumed);
    assertThat(drivenAgain.kind()).isEqualTo(DriveEnd.Kind.SETTLED);
    assertThat(drivenAgain.record().state()).isEqualTo(IntentState.COMPLETED);
    assertThat(wire.attempts()).as("the second drive sent the same key again").hasSize(2)
        .extracting(ScriptedWire.Attempt::keyValue).containsOnly("\"pay-7\"");
  }

  @Test
  void a_closed_owner_admits_nothing_creates_no_record_and_sends_nothing() throws Exception {
    DriveSettings settings = f.settings();
    IntentRecord candidate = DriveFixture.candidate(settings, "pay-8");
    ScriptedWire wire = ScriptedWire.answering(status(201));
    owner.close(Duration.ZERO);

    DriveEnd end = endOf(session(settings).admit(candidate, blocking(wire)));

    assertThat(end.isNotStarted()).isTrue();
    assertThat(end.detail()).startsWith("the test client was closed before the drive started");
    assertThat(f.store.get(candidate.id())).isEmpty();
    assertThat(wire.attempts()).isEmpty();
  }
}
