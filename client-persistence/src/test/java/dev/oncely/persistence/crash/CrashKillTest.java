package dev.oncely.persistence.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentStore;
import dev.oncely.persistence.internal.CommitHalts;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kill tests with real processes and real files: a {@link CrashChild} JVM writes through the store
 * from several threads and is killed with SIGKILL at seeded random moments (after a seeded number
 * of acknowledgements, sometimes while it is still opening and recovering the file), or halts
 * itself inside the engine's commit through {@link CommitHalts} (before or right after the
 * commit statement) or, for MapDB, inside its own I/O through
 * {@link dev.oncely.persistence.internal.mapdb.MapDbHalts} (a write to a copy, a torn journal
 * append, three steps of a checkpoint; the children checkpoint every
 * {@value CrashEngines#JOURNAL_LIMIT} journal bytes so checkpoints happen). After every kill the parent opens the same files and checks every
 * acknowledgement with {@link CrashVerifier}; then the next child continues on them.
 *
 * <p>{@code -Doncely.crash.kills=N} sets the kills per engine (default 30; 300 for the long mode),
 * {@code -Doncely.crash.seed=S} replays a run.
 */
class CrashKillTest {
  private static final int KILLS = Integer.getInteger("oncely.crash.kills", 30);
  private static final long SEED = Long.getLong("oncely.crash.seed", 20261130L);
  /** Writes a child attempts; far more than it gets to before the kill. */
  private static final int CHILD_OPS = 2_000;
  private static final int MAX_ACKS_BEFORE_KILL = 60;

  @TempDir Path dir;

  static Stream<String> engines() {
    return CrashEngines.underTest().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  void acknowledged_writes_survive_sigkill_and_crashes_inside_commit(String engine)
      throws Exception {
    Path store = dir.resolve(engine + "-intents.db");
    Random random = new Random(SEED ^ engine.hashCode());
    Map<String, Long> acknowledged = new HashMap<>();
    int sigkills = 0;
    int commitHalts = 0;
    int engineCommitHalts = 0;
    int acks = 0;
    Map<String, Integer> haltsByPoint = new TreeMap<>();
    for (int run = 0; sigkills + commitHalts + engineCommitHalts < KILLS; run++) {
      long childSeed = random.nextLong();
      String context = engine + " run " + run + " (seed " + SEED + ")";
      String insideEngine = CrashEngines.haltInsideEngine(engine, random);
      if (run % 3 == 1 && insideEngine != null) {
        ChildProcess child = ChildProcess.start(engine, store, childSeed, CHILD_OPS,
            List.of(insideEngine), dir, run);
        acks += record(child.remainingLines(), acknowledged, child, context);
        int status = child.awaitExit();
        assertThat(status).as("%s: exit status with %s; stderr: %s",
            context, insideEngine, child.stderrText()).isEqualTo(CommitHalts.HALT_STATUS);
        engineCommitHalts++;
        haltsByPoint.merge(insideEngine.substring(2, insideEngine.indexOf('=')), 1, Integer::sum);
      } else if (run % 3 == 2) {
        String hook = (1 + random.nextInt(12)) + (random.nextBoolean() ? ":after" : "");
        ChildProcess child = ChildProcess.start(engine, store, childSeed, CHILD_OPS, hook, dir, run);
        acks += record(child.remainingLines(), acknowledged, child, context);
        int status = child.awaitExit();
        assertThat(status).as("%s: exit status with crash hook %s; stderr: %s",
            context, hook, child.stderrText()).isEqualTo(CommitHalts.HALT_STATUS);
        commitHalts++;
      } else {
        int killAfter = random.nextInt(MAX_ACKS_BEFORE_KILL + 5) - 5;
        ChildProcess child = ChildProcess.start(engine, store, childSeed, CHILD_OPS, List.of(), dir,
            run);
        if (killAfter >= 0) {
          acks += waitForAcks(child, killAfter, acknowledged, context);
        }
        child.kill();
        acks += record(child.remainingLines(), acknowledged, child, context);
        sigkills++;
      }
      try (IntentStore reopened = CrashEngines.open(engine, store)) {
        assertThat(CrashVerifier.problems(reopened, acknowledged))
            .as("%s: after the crash", context).isEmpty();
      }
    }
    System.out.printf("crash test %s: %d SIGKILLs + %d halts at the commit statement + %d halts"
        + " inside the engine's own I/O %s survived, %d acks, %d keys, seed %d%n", engine,
        sigkills, commitHalts, engineCommitHalts, haltsByPoint, acks, acknowledged.size(), SEED);
    assertThat(acknowledged).as("the children acknowledged writes").isNotEmpty();
  }

  /** Reads lines until OPENED and {@code count} ACKs or the child's end; returns the ACKs read. */
  private static int waitForAcks(ChildProcess child, int count, Map<String, Long> acknowledged,
      String context) throws InterruptedException {
    int seen = 0;
    boolean opened = false;
    while (!opened || seen < count) {
      String line = child.nextLine();
      if (line == null) {
        return seen;
      }
      opened |= line.equals("OPENED");
      seen += record(List.of(line), acknowledged, child, context);
    }
    return seen;
  }

  /** Records the ACKs in {@code lines}; fails on any line that reports a broken store. */
  private static int record(List<String> lines, Map<String, Long> acknowledged, ChildProcess child,
      String context) {
    int acks = 0;
    for (String line : lines) {
      if (line.startsWith("ACK ")) {
        String[] parts = line.split(" ");
        acknowledged.merge(parts[1], Long.parseLong(parts[2]), Math::max);
        acks++;
      } else if (!line.equals("OPENED") && !line.equals("DONE")) {
        throw new AssertionError(context + ": the child reported " + line + "; stderr: "
            + child.stderrText());
      }
    }
    return acks;
  }
}
