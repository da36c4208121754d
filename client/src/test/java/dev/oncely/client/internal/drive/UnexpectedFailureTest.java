package dev.oncely.client.internal.drive;

import static dev.oncely.client.internal.drive.ScriptedWire.refusedBeforeWrite;
import static dev.oncely.client.internal.drive.ScriptedWire.throwsAfterWrite;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.PendingReason;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The drive loop's promise for an exception nothing expected (its class comment, docs/client.md
 * on {@code UNEXPECTED_FAILURE}, docs/ARCHITECTURE.md): {@code start()} and {@code resume()} never
 * throw, the record is parked {@code PENDING}, and it is marked maybe delivered once an attempt
 * had started, so a later refusal is not taken as final. The shipped wires turn their own failures
 * into answers; these wires break their "never throws" contract, as a wire's own bug would.
 */
class UnexpectedFailureTest {
  private final DriveFixture f = new DriveFixture();

  private DriveEnd drive(ScriptedWire wire) {
    DriveSettings settings = f.settings();
    IntentRecord record = DriveFixture.candidate(settings, "pay-x");
    f.store.create(record);
    DriveLoop loop = DriveLoop.of(settings, wire, record, true, false);
    DriveLoop.Next next = loop.start();
    while (next instanceof DriveLoop.Wait wait) {
      f.clock.advance(wait.delay());
      next = loop.resume();
    }
    return ((DriveLoop.Ended) next).end();
  }

  private IntentRecord stored() {
    return f.store.get(DriveFixture.candidate(f.settings(), "pay-x").id()).orElseThrow();
  }

  @Test
  void an_exception_escaping_the_first_attempt_parks_the_record_instead_of_leaving_the_loop() {
    ScriptedWire wire = ScriptedWire.answering(throwsAfterWrite());
    AtomicReference<DriveEnd> end = new AtomicReference<>();

    assertThatCode(() -> end.set(drive(wire))).as("start() and resume() never throw")
        .doesNotThrowAnyException();
    assertParkedMaybeDelivered(end.get(), wire);
  }

  @Test
  void an_exception_escaping_an_attempt_after_an_unsent_one_marks_the_record_maybe_delivered() {
    ScriptedWire wire = ScriptedWire.answering(refusedBeforeWrite(), throwsAfterWrite());

    assertParkedMaybeDelivered(drive(wire), wire);
  }

  private void assertParkedMaybeDelivered(DriveEnd end, ScriptedWire wire) {
    assertThat(end.kind()).isEqualTo(DriveEnd.Kind.PARKED);
    assertThat(end.reason()).isEqualTo(PendingReason.UNEXPECTED_FAILURE);
    assertThat(end.cause()).isInstanceOf(IllegalStateException.class);
    IntentRecord stored = stored();
    assertThat(stored.state()).isEqualTo(IntentState.PENDING);
    assertThat(stored.attempts()).as("every attempt that started is counted")
        .isEqualTo(wire.attempts().size());
    assertThat(stored.maybeDelivered()).as("marked maybe delivered: an attempt had started")
        .isTrue();
  }
}
