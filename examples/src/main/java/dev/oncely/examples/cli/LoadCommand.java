package dev.oncely.examples.cli;

import dev.oncely.examples.load.LoadDriver;
import dev.oncely.examples.load.LoadReport;
import dev.oncely.examples.load.LoadSettings;
import dev.oncely.examples.load.LoadSetupException;
import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code run} and {@code resume}: the load driver's command line. Progress goes to stderr; the last
 * line of stdout is the {@link LoadReport} JSON. Exit {@link #EXIT_OK} when every intent reached a
 * final outcome, {@link #EXIT_PENDING} when some are still pending (resume later), {@link
 * #EXIT_USAGE} on bad options or a store holding another run, {@link #EXIT_FAILURE} when the store
 * cannot be opened or some intents could not be driven.
 */
public final class LoadCommand implements Command {
  private static final Set<String> VALUED = Set.of("target", "intents", "concurrency", "store",
      "dialect", "attempt-timeout-ms", "deadline-ms", "max-attempts", "max-delay-ms", "seed",
      "engine", "entry",
      "progress-ms", "status-url-pointer", "status-url-template");
  private static final Set<String> FLAGS = Set.of("retry-budget");
  private static final String OPTIONS = " [--dialect ietf|stripe] [--attempt-timeout-ms T]"
      + " [--deadline-ms D] [--seed S] [--concurrency C] [--max-attempts A] [--max-delay-ms M]"
      + " [--engine sqlite|mapdb] [--entry intent-api|interceptor] [--retry-budget]"
      + " [--progress-ms P]"
      + " [--status-url-pointer JSON-POINTER --status-url-template PATH-WITH-{}]";

  private final LoadDriver.Mode mode;

  private LoadCommand(LoadDriver.Mode mode) {
    this.mode = mode;
  }

  /** The {@code run} command. */
  public static LoadCommand run() {
    return new LoadCommand(LoadDriver.Mode.RUN);
  }

  /** The {@code resume} command. */
  public static LoadCommand resume() {
    return new LoadCommand(LoadDriver.Mode.RESUME);
  }

  private String name() {
    return mode == LoadDriver.Mode.RUN ? "run" : "resume";
  }

  @Override
  public String summary() {
    return mode == LoadDriver.Mode.RUN
        ? "send N payment intents exactly once through the SDK with a durable store"
        : "finish the unfinished intents of an earlier run (after a crash)";
  }

  @Override
  public String usage() {
    return mode == LoadDriver.Mode.RUN
        ? "run --target URL --intents N --store DIR" + OPTIONS
        : "resume --store DIR --target URL [--intents N]" + OPTIONS;
  }

  @Override
  public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
    Options o = Options.parse(name(), args, VALUED, FLAGS);
    LoadSettings settings = settings(o);
    Duration progressEvery = Duration.ofMillis(o.intValue("progress-ms", 1000, 10, 3_600_000));
    LoadReport report;
    try {
      report = LoadDriver.drive(settings, mode, err, progressEvery);
    } catch (LoadSetupException e) {
      err.println(name() + ": " + e.getMessage());
      return e.getCause() == null ? EXIT_USAGE : EXIT_FAILURE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(name() + ": interrupted; unfinished intents stay in the store for 'resume'");
      return EXIT_PENDING;
    }
    out.println(report.toJson());
    out.flush();
    if (report.errors() > 0) {
      return EXIT_FAILURE;
    }
    return report.allFinal() ? EXIT_OK : EXIT_PENDING;
  }

  private LoadSettings settings(Options o) throws UsageException {
    LoadSettings.Builder b = LoadSettings.builder();
    String target = required(o, "target");
    String store = required(o, "store");
    try {
      b.target(target);
    } catch (IllegalArgumentException e) {
      throw o.bad("target", target, "an absolute http(s) URL");
    }
    try {
      b.storeDir(Paths.get(store));
    } catch (InvalidPathException e) {
      throw o.bad("store", store, "a directory path");
    }
    if (mode == LoadDriver.Mode.RUN) {
      required(o, "intents");
    }
    if (o.has("intents")) {
      b.intents(o.intValue("intents", 1, 1, 10_000_000));
    }
    b.concurrency(o.intValue("concurrency", LoadSettings.DEFAULT_CONCURRENCY, 1, 1024));
    b.maxAttempts(o.intValue("max-attempts", LoadSettings.DEFAULT_MAX_ATTEMPTS, 1, 1000));
    b.maxDelay(Duration.ofMillis(o.intValue("max-delay-ms",
        (int) LoadSettings.DEFAULT_MAX_DELAY.toMillis(), 200, 3_600_000)));
    b.attemptTimeout(Duration.ofMillis(o.intValue("attempt-timeout-ms",
        (int) LoadSettings.DEFAULT_ATTEMPT_TIMEOUT.toMillis(), 1, 3_600_000)));
    b.deadline(Duration.ofMillis(o.intValue("deadline-ms",
        (int) LoadSettings.DEFAULT_DEADLINE.toMillis(), 1, Integer.MAX_VALUE)));
    b.seed(o.longValue("seed", 0));
    b.retryBudget(o.has("retry-budget"));
    String entry = o.string("entry", "intent-api");
    if (!entry.equals("intent-api") && !entry.equals("interceptor")) {
      throw o.bad("entry", entry, "intent-api or interceptor");
    }
    b.interceptor(entry.equals("interceptor"));
    String dialect = o.string("dialect", "ietf");
    try {
      b.dialect(dialect);
    } catch (IllegalArgumentException e) {
      throw o.bad("dialect", dialect, "ietf or stripe");
    }
    statusUrlFromBody(o, b);
    if (o.has("engine")) {
      String engine = o.string("engine", "");
      try {
        b.engine(LoadSettings.StoreEngine.parse(engine));
      } catch (IllegalArgumentException e) {
        throw o.bad("engine", engine, "sqlite or mapdb");
      }
    }
    return b.build();
  }

  /** {@code --status-url-pointer} and {@code --status-url-template}: both or neither. */
  private void statusUrlFromBody(Options o, LoadSettings.Builder b) throws UsageException {
    String pointerOption = "status-url-pointer";
    String templateOption = "status-url-template";
    if (o.has(pointerOption) != o.has(templateOption)) {
      String given = o.has(pointerOption) ? pointerOption : templateOption;
      String missing = o.has(pointerOption) ? templateOption : pointerOption;
      throw new UsageException("option --" + given + " of " + name() + " needs --" + missing
          + " (both or neither)");
    }
    if (!o.has(pointerOption)) {
      return;
    }
    String pointer = o.string(pointerOption, "");
    try {
      b.statusUrlPointer(pointer);
    } catch (IllegalArgumentException e) {
      throw o.bad(pointerOption, pointer, "a JSON Pointer such as /id");
    }
    String template = o.string(templateOption, "");
    try {
      b.statusUrlTemplate(template);
    } catch (IllegalArgumentException e) {
      throw o.bad(templateOption, template, LoadSettings.STATUS_URL_TEMPLATE_RULE);
    }
  }

  private String required(Options o, String name) throws UsageException {
    if (!o.has(name)) {
      throw new UsageException("option --" + name + " is required for " + name());
    }
    return o.string(name, "");
  }
}
