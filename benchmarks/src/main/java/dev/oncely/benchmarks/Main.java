package dev.oncely.benchmarks;

import dev.oncely.benchmarks.internal.Engine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The end-to-end harness: runs the client's scenarios in one process and writes
 * {@code results.csv}, {@code results.json} and {@code results.md}.
 *
 * <pre>
 * java -jar benchmarks/target/oncely-benchmarks.jar [--smoke] [--reps N] [--resume-intents N]
 *     [--scale-intents N] [--no-postgres] [--postgres-fill-seconds N] [--waits-intents N]
 *     [--webhook-messages N] [--jit-quiet SHARE] [--only a,b] [--out DIR]
 * java -jar benchmarks/target/oncely-benchmarks.jar --profile memory,mapdb [--profile-c N]
 *     [--profile-seconds N] [--out DIR]
 * </pre>
 *
 * <p>{@code --only} takes any of {@value #SCENARIOS} and the opt-in {@value #OPT_IN}, which
 * only {@code --only} runs; {@code --out} defaults to
 * {@code benchmarks/results} ({@code benchmarks/results/profile} with {@code --profile}, which
 * runs {@link ProfileRun} instead of the scenarios; {@code benchmarks/results/server} for
 * {@code --only server}, {@code benchmarks/results/webhook} for {@code --only webhook}). The scale
 * scenario starts a PostgreSQL server to weigh that store's finished intents, filling it for at
 * most {@code --postgres-fill-seconds} (240); {@code --no-postgres} leaves it out (the build's
 * smoke test does). Exit code 0 on success, 2 on bad
 * usage.
 */
public final class Main {
  static final String SCENARIOS = "throughput,commit,resume,claim,scale,retry,outage,waits,micro";
  /**
   * Scenarios run only when {@code --only} names them: the server half's and webhook receipt
   * (they start Tomcat and a PostgreSQL server), kept out of the suite's default run and of the
   * build's smoke test.
   */
  static final String OPT_IN = "server,webhook";
  static final String COMMAND = "mvn -B -q -pl benchmarks -am package -DskipTests"
      + " && java -jar benchmarks/target/oncely-benchmarks.jar";

  private Main() {}

  /** Runs the harness; see the class description for arguments. */
  public static void main(String[] args) {
    int code = run(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  /** Runs the harness and returns the exit code instead of exiting. */
  public static int run(String[] args) {
    Settings settings = Settings.full();
    Path out = null;
    List<Engine> profile = null;
    int profileConcurrency = 64;
    int profileSeconds = 20;
    int waitsIntents = -1;
    int webhookMessages = -1;
    boolean postgres = true;
    Duration postgresFill = ScaleScenario.PG_FILL_LIMIT;
    Set<String> only = new LinkedHashSet<>(Arrays.asList(SCENARIOS.split(",")));
    List<String> argv = new ArrayList<>(Arrays.asList(args));
    try {
      while (!argv.isEmpty()) {
        String arg = argv.remove(0);
        switch (arg) {
          case "--smoke" -> settings = Settings.smoke();
          case "--reps" -> settings = settings.withReps(Integer.parseInt(value(arg, argv)));
          case "--resume-intents" -> settings =
              settings.withResumeIntents(Integer.parseInt(value(arg, argv)));
          case "--scale-intents" -> settings =
              settings.withScaleIntents(Integer.parseInt(value(arg, argv)));
          case "--no-postgres" -> postgres = false;
          case "--postgres-fill-seconds" -> postgresFill =
              Duration.ofSeconds(positive(arg, value(arg, argv)));
          case "--waits-intents" -> waitsIntents = positive(arg, value(arg, argv));
          case "--webhook-messages" -> webhookMessages = positive(arg, value(arg, argv));
          case "--out" -> out = Path.of(value(arg, argv));
          case "--jit-quiet" -> settings =
              settings.withJitQuiet(Double.parseDouble(value(arg, argv)));
          case "--profile" -> profile = ProfileRun.subjects(value(arg, argv));
          case "--profile-c" -> profileConcurrency = positive(arg, value(arg, argv));
          case "--profile-seconds" -> profileSeconds = positive(arg, value(arg, argv));
          case "--only" -> {
            only = new LinkedHashSet<>(Arrays.asList(value(arg, argv).split(",")));
            for (String s : only) {
              if (!Arrays.asList((SCENARIOS + "," + OPT_IN).split(",")).contains(s)) {
                throw new IllegalArgumentException("unknown scenario '" + s + "'; known: "
                    + SCENARIOS + "," + OPT_IN);
              }
            }
          }
          default -> throw new IllegalArgumentException("unknown argument '" + arg + "'");
        }
      }
    } catch (IllegalArgumentException e) {
      System.err.println("oncely-benchmarks: " + e.getMessage());
      System.err.println("usage: java -jar oncely-benchmarks.jar [--smoke] [--reps N] [--resume-intents N]"
          + " [--scale-intents N] [--no-postgres] [--postgres-fill-seconds N]"
          + " [--waits-intents N] [--webhook-messages N] [--jit-quiet SHARE]"
          + " [--only " + SCENARIOS
          + "," + OPT_IN + "] [--out DIR]");
      System.err.println("       java -jar oncely-benchmarks.jar --profile memory,mapdb,sqlite,plain"
          + " [--profile-c N] [--profile-seconds N] [--out DIR]");
      return 2;
    }
    if (profile != null) {
      new ProfileRun(settings, profile, profileConcurrency, Duration.ofSeconds(profileSeconds),
          out == null ? Path.of("benchmarks", "results", "profile") : out).run();
      return 0;
    }
    if (out == null) {
      // An opt-in scenario run alone keeps its results beside the suite's, not over them.
      List<String> optIn = Arrays.asList(OPT_IN.split(","));
      out = optIn.containsAll(only) ? Path.of("benchmarks", "results", String.join("-", only))
          : Path.of("benchmarks", "results");
    }
    String command = COMMAND + (args.length == 0 ? "" : " " + String.join(" ", args));
    Results results = new Results(Machine.describe(settings, command));
    long start = System.nanoTime();
    for (String scenario : only) {
      long t0 = System.nanoTime();
      System.out.println("== " + scenario);
      scenario(scenario, settings, waitsIntents, webhookMessages, postgres, postgresFill, results,
          out);
      System.out.printf(Locale.ROOT, "   (%s took %.1f s)%n", scenario, (System.nanoTime() - t0) / 1e9);
      results.write(out);
    }
    results.fact("load average at end", Machine.loadAverage());
    results.fact("suite wall time", String.format(Locale.ROOT, "%.0f s",
        Duration.ofNanos(System.nanoTime() - start).toMillis() / 1000.0));
    results.write(out);
    System.out.println("results written to " + out.toAbsolutePath());
    return 0;
  }

  private static void scenario(String name, Settings settings, int waitsIntents,
      int webhookMessages, boolean postgres, Duration postgresFill, Results results, Path out) {
    switch (name) {
      case "throughput" -> new ThroughputScenario(settings, results).run();
      case "commit" -> new CommitScenario(settings, results).run();
      case "resume" -> new ResumeScenario(settings, results).run();
      case "claim" -> new ClaimScenario(settings, results).run();
      case "scale" -> new ScaleScenario(settings, results, postgres, postgresFill)
          .run();
      case "retry" -> new RetryScenario(settings, results).run();
      case "outage" -> new OutageScenario(settings, results).run();
      case "waits" -> new WaitsScenario(waitsIntents > 0 ? waitsIntents
          : "smoke".equals(settings.name()) ? 20 : 1000, settings.reps(), results).run();
      case "micro" -> new MicroScenario(settings, results).run();
      case "server" -> new ServerScenario(settings, results, out).run();
      case "webhook" -> new WebhookScenario(settings, results, webhookMessages > 0
          ? webhookMessages : "smoke".equals(settings.name()) ? 300 : 1_000_000).run();
      default -> throw new IllegalArgumentException("unknown scenario " + name);
    }
  }

  private static int positive(String option, String value) {
    int n = Integer.parseInt(value);
    if (n < 1) {
      throw new IllegalArgumentException(option + " must be >= 1, was " + n);
    }
    return n;
  }

  private static String value(String option, List<String> argv) {
    if (argv.isEmpty()) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return argv.remove(0);
  }
}
