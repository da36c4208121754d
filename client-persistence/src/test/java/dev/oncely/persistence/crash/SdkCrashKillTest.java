package dev.oncely.persistence.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.persistence.internal.CommitHalts;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exactly-once across SIGKILLs, end to end: a {@link SdkCrashChild} JVM drives {@value #MIN_INTENTS}
 * or more payment intents through {@code IdempotentClient} (or an {@link InterceptorCrashChild}
 * through plain OkHttp with the {@code IdempotencyInterceptor} and tagged requests) with a durable
 * store against the
 * {@link EffectServer} in this JVM (a quarter of its answers dropped after the effect, some effects
 * slow: {@code 202} then {@code 409}). The test kills the child with SIGKILL at seeded moments
 * (while it opens and resumes, after a seeded number of stored outcomes, or once the server
 * committed a seeded number of effects) or halts it inside the engine's commit (at the commit
 * statement, and for MapDB also in the middle of MapDB's own commit), reopens the store
 * and checks it after every crash, restarts the child on the same files, and finally lets it
 * resume to the end: every intent completed, exactly one business effect and one key per order,
 * every stored record and response exactly what was sent and answered.
 *
 * <p>{@code -Doncely.crash.kills=N} sets the crashes per engine (default 30; 300 for the long mode,
 * which also drives 7 intents per crash), {@code -Doncely.crash.seed=S} replays a run.
 */
@Execution(ExecutionMode.SAME_THREAD)
class SdkCrashKillTest {
  private static final int KILLS = Integer.getInteger("oncely.crash.kills", 30);
  private static final long SEED = Long.getLong("oncely.crash.seed", 20261130L);
  private static final int MIN_INTENTS = 200;
  private static final int INTENTS = Math.max(MIN_INTENTS, KILLS * 7);
  /** Most outcomes or effects a run may see before its kill: the runs end before the intents do. */
  private static final int MAX_STEP = Math.max(2, 2 * INTENTS / (3 * KILLS));

  @TempDir Path dir;

  /** Every engine, through the intent API and through plain OkHttp with the interceptor. */
  static Stream<Arguments> enginesAndEntryPoints() {
    return CrashEngines.underTest().stream().flatMap(engine -> Stream.of(
        Arguments.of(engine, SdkCrashChild.class), Arguments.of(engine,
            InterceptorCrashChild.class)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("enginesAndEntryPoints")
  @Execution(ExecutionMode.CONCURRENT)
  void every_intent_completes_with_exactly_one_effect_across_sigkills_and_restarts(String engine,
      Class<?> entryPoint) throws Exception {
    long started = System.nanoTime();
    Random random = new Random(SEED ^ engine.hashCode() ^ entryPoint.getSimpleName().hashCode());
    try (SdkCrashRig rig = SdkCrashRig.start(engine, dir, INTENTS, random.nextLong(), 25, 15,
        entryPoint)) {
      int sigkills = 0;
      int commitHalts = 0;
      int engineCommitHalts = 0;
      int finishedEarly = 0;
      for (int run = 0; sigkills + commitHalts + engineCommitHalts < KILLS
          && rig.acks.completedCount() < INTENTS;
          run++) {
        if (run % 5 == 4) {
          String inside = CrashEngines.haltInsideEngine(engine, random);
          String hook = "-D" + CommitHalts.PROPERTY + "=" + (1 + random.nextInt(3 * MAX_STEP))
              + (random.nextBoolean() ? ":after" : "");
          boolean insideEngine = inside != null && run % 10 == 9;
          String crashPoint = insideEngine ? inside : hook;
          ChildProcess child = rig.child(List.of(crashPoint));
          boolean done = rig.drain(child);
          int status = child.awaitExit();
          assertThat(status).as("%s: exit status with %s; stderr: %s", rig.context(), crashPoint,
              child.stderrText()).isIn(0, CommitHalts.HALT_STATUS);
          if (status != CommitHalts.HALT_STATUS || done) {
            finishedEarly++;
          } else if (insideEngine) {
            engineCommitHalts++;
          } else {
            commitHalts++;
          }
        } else {
          ChildProcess child = rig.child(List.of());
          int moment = random.nextInt(10);
          if (moment >= 1 && moment <= 4) {
            rig.awaitOutcomes(child, random.nextInt(MAX_STEP + 1));
          } else if (moment >= 5) {
            int target = Math.min(rig.effects.effects() + 1 + random.nextInt(MAX_STEP), INTENTS);
            rig.effects.await(() -> rig.effects.effects() >= target, child::isAlive,
                SdkCrashRig.PATIENCE);
          }
          child.kill();
          if (rig.drain(child)) {
            finishedEarly++;
          } else {
            sigkills++;
          }
        }
        rig.verify(false);
      }
      rig.finish();
      System.out.printf("sdk crash test %s %s: %d SIGKILLs + %d halts at the commit statement + %d"
          + " halts inside the engine library's commit survived (%d runs finished before their"
          + " crash), %d intents, %s, %d ms, seed %d%n", engine, entryPoint.getSimpleName(), sigkills, commitHalts,
          engineCommitHalts, finishedEarly, INTENTS, rig.effects,
          (System.nanoTime() - started) / 1_000_000, SEED);
      assertThat(sigkills + commitHalts + engineCommitHalts).isGreaterThanOrEqualTo(KILLS);
    }
  }
}
