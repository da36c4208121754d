package dev.oncely.persistence.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import mockwebserver3.MockWebServer;
import okhttp3.HttpUrl;

/**
 * One SDK crash scenario's fixtures: the {@link EffectServer} behind a real MockWebServer in this
 * JVM, the store files of one engine in a temp dir, and the acknowledgements of every
 * {@link SdkCrashChild} run on them. Starts children, reads their lines, reopens the store after
 * each crash and checks it with {@link SdkCrashVerifier}.
 */
final class SdkCrashRig implements AutoCloseable {
  /** How long a child may take to reach an awaited state before the test fails. */
  static final Duration PATIENCE = Duration.ofSeconds(120);

  final String engine;
  final EffectServer effects;
  final SdkAcks acks = new SdkAcks();
  final int count;
  private final Path dir;
  private final Path store;
  private final MockWebServer server;
  private final String baseUrl;
  private final long seed;
  private final Class<?> childClass;
  private int runs;

  private SdkCrashRig(String engine, Path dir, int count, EffectServer effects, long seed,
      Class<?> childClass) throws IOException {
    this.engine = engine;
    this.dir = dir;
    this.childClass = childClass;
    this.store = dir.resolve(engine + "-" + childClass.getSimpleName() + "-intents.db");
    this.count = count;
    this.effects = effects;
    this.seed = seed;
    this.server = new MockWebServer();
    server.setDispatcher(effects);
    server.start();
    HttpUrl url = server.url("/");
    this.baseUrl = url.scheme() + "://" + url.host() + ":" + url.port();
  }

  /**
   * Starts the server for {@code count} intents of {@code engine} in {@code dir}; a seeded share of
   * answers is dropped after the effect ({@code dropPercent}) and of effects is slow
   * ({@code slowPercent}: {@code 202}, then {@code 409}s).
   */
  static SdkCrashRig start(String engine, Path dir, int count, long seed, int dropPercent,
      int slowPercent) throws IOException {
    return start(engine, dir, count, seed, dropPercent, slowPercent, SdkCrashChild.class);
  }

  /**
   * Like {@link #start(String, Path, int, long, int, int)}, with children of {@code childClass}
   * ({@link SdkCrashChild} for the intent API, {@link InterceptorCrashChild} for plain OkHttp).
   */
  static SdkCrashRig start(String engine, Path dir, int count, long seed, int dropPercent,
      int slowPercent, Class<?> childClass) throws IOException {
    return new SdkCrashRig(engine, dir, count, new EffectServer(seed, dropPercent, slowPercent),
        seed, childClass);
  }

  /** Starts a child on the store with extra JVM arguments (crash points as {@code -Dname=value}). */
  ChildProcess child(List<String> jvmArguments) throws IOException {
    int run = runs++;
    return ChildProcess.start(childClass, jvmArguments, List.of(engine, store.toString(),
        baseUrl, Integer.toString(count), Long.toString(seed + run)), dir,
        engine + "-" + childClass.getSimpleName() + "-" + run);
  }

  /**
   * Reads lines until the child reported {@code outcomes} more outcomes (or ended); returns whether
   * it reached them.
   */
  boolean awaitOutcomes(ChildProcess child, int outcomes) throws InterruptedException {
    int seen = 0;
    while (seen < outcomes) {
      String line = child.nextLine();
      if (line == null) {
        return false;
      }
      if (acks.record(line, child, context())) {
        seen++;
      }
    }
    return true;
  }

  /** Records every line the child printed up to its end; returns whether it printed ALLDONE. */
  boolean drain(ChildProcess child) throws InterruptedException {
    boolean done = false;
    for (String line : child.remainingLines()) {
      acks.record(line, child, context());
      done |= line.equals("ALLDONE");
    }
    return done;
  }

  /** Opens the store (it must open after every crash) and asserts every promise holds. */
  void verify(boolean end) {
    try (IntentStore opened = CrashEngines.open(engine, store)) {
      assertThat(SdkCrashVerifier.problems(opened, effects, baseUrl, count, acks, end))
          .as("%s: %s", context(), end ? "at the end" : "after the crash").isEmpty();
    }
  }

  /** The stored record of intent {@code n}, read from a freshly opened store; null if absent. */
  IntentRecord record(int n) {
    try (IntentStore opened = CrashEngines.open(engine, store)) {
      return opened.findByBusinessId(SdkWorkload.SCOPE, SdkWorkload.OPERATION,
          SdkWorkload.order(n)).orElse(null);
    }
  }

  /** Runs a child without crash points to the end and asserts every intent completed once. */
  void finish() throws Exception {
    ChildProcess last = child(List.of());
    boolean done = drain(last);
    int status = last.awaitExit();
    assertThat(done && status == 0).as("%s: the last run ends cleanly (status %d); stderr: %s",
        context(), status, last.stderrText()).isTrue();
    verify(true);
  }

  String context() {
    return engine + " " + childClass.getSimpleName() + " run " + runs;
  }

  @Override
  public void close() {
    server.close();
  }
}
