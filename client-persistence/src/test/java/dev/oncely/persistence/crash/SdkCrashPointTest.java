package dev.oncely.persistence.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.persistence.internal.CommitHalts;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Crashes of the SDK at the four moments that decide exactly-once, each forced deterministically
 * on intent {@value #TARGET} of {@value #INTENTS} (the others run around it, with dropped answers
 * and slow effects): the record is durable but nothing was sent; the server committed the effect
 * but the answer was never read; the answer was read but the outcome not stored; inside the
 * engine's commit, before its commit statement ({@link SdkCrashKillTest} also halts right after it
 * and, for MapDB, in the middle of MapDB's own commit). After each crash the store must open and hold every acknowledged record; a
 * restarted child resumes, and every intent ends completed with exactly one business effect.
 */
@Execution(ExecutionMode.SAME_THREAD)
class SdkCrashPointTest {
  private static final int INTENTS = 24;
  private static final int TARGET = 11;
  private static final int ENGINE_COMMIT_HALT = 5;
  private static final String ORDER = SdkWorkload.order(TARGET);
  private static final long SEED = 20261130L;

  @TempDir Path dir;

  static Stream<String> engines() {
    return CrashEngines.NAMES.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  @Execution(ExecutionMode.CONCURRENT)
  void record_committed_but_not_sent_is_sent_once_after_restart(String engine) throws Exception {
    try (SdkCrashRig rig = rig(engine)) {
      halted(rig, "-D" + SdkCrashChild.HALT_ON_FIRST_SEND + "=" + TARGET);

      assertThat(rig.effects.keysOf(ORDER)).as("nothing reached the server").isEmpty();
      IntentRecord stored = rig.record(TARGET);
      assertThat(stored).as("the record is durable before the first send").isNotNull();
      assertThat(stored.state().isTerminal()).isFalse();
      rig.verify(false);

      rig.finish();
      assertThat(rig.effects.effectsOf(ORDER)).isEqualTo(1);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  @Execution(ExecutionMode.CONCURRENT)
  void effect_committed_but_answer_unread_is_answered_409_then_replayed_after_restart(
      String engine) throws Exception {
    try (SdkCrashRig rig = rig(engine)) {
      EffectServer.Pause pause = rig.effects.pauseAfterEffect(ORDER);
      try {
        ChildProcess first = rig.child(List.of());
        assertThat(pause.committed.await(SdkCrashRig.PATIENCE.toSeconds(), TimeUnit.SECONDS))
            .as("the server committed the effect of %s; stderr: %s", ORDER, first.stderrText())
            .isTrue();
        first.kill();
        rig.drain(first);

        assertThat(rig.effects.effectsOf(ORDER)).isEqualTo(1);
        assertThat(rig.record(TARGET).state().isTerminal())
            .as("the child never learnt the outcome").isFalse();
        rig.verify(false);

        ChildProcess second = rig.child(List.of());
        rig.effects.await(() -> rig.effects.inProgressAnswersOf(ORDER) > 0, second::isAlive,
            SdkCrashRig.PATIENCE);
        assertThat(rig.effects.inProgressAnswersOf(ORDER))
            .as("the resent request met the first one still processing; stderr: %s",
                second.stderrText()).isPositive();
        pause.release.countDown();
        assertThat(rig.drain(second)).as("stderr: %s", second.stderrText()).isTrue();
        assertThat(second.awaitExit()).isZero();
      } finally {
        pause.release.countDown();
      }
      rig.verify(true);
      assertThat(rig.effects.effectsOf(ORDER)).isEqualTo(1);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  @Execution(ExecutionMode.CONCURRENT)
  void answer_read_but_outcome_not_stored_is_completed_from_the_replay_after_restart(
      String engine) throws Exception {
    try (SdkCrashRig rig = rig(engine)) {
      halted(rig, "-D" + SdkCrashChild.HALT_BEFORE_OUTCOME + "=" + TARGET);

      assertThat(rig.effects.effectsOf(ORDER)).isEqualTo(1);
      assertThat(rig.record(TARGET).state().isTerminal())
          .as("the outcome was read but never stored").isFalse();
      rig.verify(false);
      int replaysBefore = rig.effects.replays();

      rig.finish();
      assertThat(rig.effects.effectsOf(ORDER)).isEqualTo(1);
      assertThat(rig.effects.replays()).as("the outcome came from the server's replay")
          .isGreaterThan(replaysBefore);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  @Execution(ExecutionMode.CONCURRENT)
  void crash_inside_the_engine_commit_loses_no_acknowledged_record_and_duplicates_no_effect(
      String engine) throws Exception {
    try (SdkCrashRig rig = rig(engine)) {
      // Group commit batches the creates of concurrent submits, so 24 intents take as few as
      // about a dozen commits: halt early enough that the crash always comes.
      halted(rig, "-D" + CommitHalts.PROPERTY + "=" + ENGINE_COMMIT_HALT);
      rig.verify(false);

      rig.finish();
      for (int n = 0; n < INTENTS; n++) {
        assertThat(rig.effects.effectsOf(SdkWorkload.order(n))).isEqualTo(1);
      }
    }
  }

  private SdkCrashRig rig(String engine) throws Exception {
    return SdkCrashRig.start(engine, dir, INTENTS, SEED ^ engine.hashCode(), 25, 15);
  }

  /** Runs a child with {@code crashPoint} armed and asserts it halted there. */
  private static void halted(SdkCrashRig rig, String crashPoint) throws Exception {
    ChildProcess child = rig.child(List.of(crashPoint));
    boolean done = rig.drain(child);
    int status = child.awaitExit();
    assertThat(!done && status == CommitHalts.HALT_STATUS)
        .as("%s: the child halted at %s (status %d); stderr: %s", rig.context(), crashPoint,
            status, child.stderrText()).isTrue();
  }
}
