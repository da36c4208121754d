package dev.oncely.examples.demo;

import dev.oncely.examples.cli.Command;
import dev.oncely.examples.server.FaultPlan;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one-command demonstration: the {@link SdkScenario} (durable store,
 * SIGKILL, resume) and then the {@link NaiveScenario} with the same workload and faults; progress
 * on stderr, the comparison table and the verdict on stdout.
 *
 * <p>{@link #run} returns {@link Command#EXIT_OK} when the SDK made no duplicate charge and lost no
 * intent, and {@link Command#EXIT_FAILURE} otherwise or when a step failed.
 */
public final class Demo {
  private final DemoSettings settings;
  private final ProgressBar bar;
  private RunSummary sdk;
  private RunSummary interceptor;
  private RunSummary naive;
  private ShopLaneReport shopLane;

  /** A demo with {@code settings} reporting progress on {@code bar}. */
  public Demo(DemoSettings settings, ProgressBar bar) {
    this.settings = settings;
    this.bar = bar;
  }

  /** Runs both scenarios, prints the table and the verdict, and returns the exit code. */
  public int run(PrintStream out) throws InterruptedException {
    bar.message(String.format(Locale.ROOT, "Oncely demo: %,d payment intents at concurrency %d"
        + " against a server that %s; %s answered 202 and finished later (seed %d)",
        settings.intents(), settings.concurrency(), describe(settings.faults()),
        percent(settings.slowShare()), settings.seed()));
    try {
      bar.message("[1/3] Oncely SDK in a child JVM with a SQLite store in a temp directory;"
          + " SIGKILL once " + settings.killAfter() + " payments exist, then 'resume'");
      sdk = new SdkScenario(settings, bar).run();
      bar.message("[2/3] plain OkHttp with the Oncely interceptor and IntentTag-ged requests, the"
          + " same store, SIGKILL and resume through the app's own client");
      interceptor = new SdkScenario(settings, bar, true).run();
      bar.message("[3/3] naive client: plain OkHttp, the same retries, no idempotency key");
      naive = new NaiveScenario(settings, bar).run();
    } catch (DemoFailedException e) {
      bar.message("demo failed: " + e.getMessage());
      return Command.EXIT_FAILURE;
    }
    out.println();
    out.print(ResultTable.render(List.of(sdk, interceptor, naive)));
    out.println();
    boolean exact = sdk.duplicates() == 0 && sdk.lost() == 0
        && interceptor.duplicates() == 0 && interceptor.lost() == 0;
    out.println(exact
        ? "Oncely: every intent paid exactly once" + (sdk.killedAt() < 0
            ? " (0 duplicates, 0 lost; the run finished before the kill point)."
            : " across a SIGKILL (0 duplicates, 0 lost).")
        : String.format(Locale.ROOT, "FAILED: the SDK made %,d duplicate charges and lost %,d"
            + " intents; the interceptor %,d and %,d.", sdk.duplicates(), sdk.lost(),
            interceptor.duplicates(), interceptor.lost()));
    out.println(String.format(Locale.ROOT, "Naive retries without a key: %,d duplicate charges,"
        + " %,d lost, and the client believed %,d payments went through once.",
        naive.duplicates(), naive.lost(), naive.completed()));
    out.flush();
    return exact ? Command.EXIT_OK : Command.EXIT_FAILURE;
  }

  /**
   * Runs the Oncely-to-Oncely lane ({@link ShopLane}) alone, prints its table and verdict, and
   * returns {@link Command#EXIT_OK} when both hops made every payment exactly once.
   */
  public int runShopLane(PrintStream out) throws InterruptedException {
    ShopLane lane = new ShopLane(settings, bar);
    bar.message(String.format(Locale.ROOT, "Oncely client -> Oncely server: %,d payments at"
        + " concurrency %d through the reference shop (Tomcat, the server half's filter,"
        + " receipts in MapDB, payments in SQLite), which charges each at a provider; the client"
        + " is SIGKILLed once %,d payments exist and resumed, the shop once the resumed client"
        + " made %s of the rest, and restarted (seed %d)", settings.intents(),
        settings.concurrency(), lane.clientKillAt(), percent(lane.shopKillShare()),
        settings.seed()));
    try {
      shopLane = lane.run();
    } catch (DemoFailedException e) {
      bar.message("demo failed: " + e.getMessage());
      return Command.EXIT_FAILURE;
    }
    out.println();
    out.print(shopLane.render());
    out.flush();
    return shopLane.exactlyOnce() && shopLane.completed() == settings.intents()
        ? Command.EXIT_OK : Command.EXIT_FAILURE;
  }

  /** The faults in words, for example "drops 8% of answers after charging, ...". */
  static String describe(FaultPlan f) {
    List<String> parts = new ArrayList<>();
    if (f.drop() > 0) {
      parts.add("drops " + percent(f.drop()) + " of answers after charging");
    }
    if (f.stall() > 0) {
      parts.add("holds " + percent(f.stall()) + " of answers for " + seconds(f.stallFor())
          + " after charging");
    }
    if (f.refuse() > 0) {
      parts.add("refuses " + percent(f.refuse()) + " of connections");
    }
    if (f.burst503() > 0) {
      parts.add("starts a burst of " + f.burstLength() + " x 503 on " + percent(f.burst503())
          + " of requests");
    }
    if (!f.latency().isZero()) {
      parts.add("adds " + f.latency().toMillis() + " ms latency");
    }
    return parts.isEmpty() ? "injects no faults" : String.join(", ", parts);
  }

  private static String seconds(Duration d) {
    return BigDecimal.valueOf(d.toMillis()).movePointLeft(3).stripTrailingZeros()
        .toPlainString() + " s";
  }

  private static String percent(double share) {
    return new BigDecimal(share * 100).round(new MathContext(3)).stripTrailingZeros()
        .toPlainString() + "%";
  }

  /** The SDK's result, or null before {@link #run} got that far. */
  public RunSummary sdkResult() {
    return sdk;
  }

  /** The interceptor's result, or null before {@link #run} got that far. */
  public RunSummary interceptorResult() {
    return interceptor;
  }

  /** The shop lane's result, or null before {@link #runShopLane} ended. */
  public ShopLaneReport shopLaneResult() {
    return shopLane;
  }

  /** The naive client's result, or null before {@link #run} got that far. */
  public RunSummary naiveResult() {
    return naive;
  }
}
