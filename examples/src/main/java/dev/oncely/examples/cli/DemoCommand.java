package dev.oncely.examples.cli;

import dev.oncely.examples.demo.Demo;
import dev.oncely.examples.demo.DemoSettings;
import dev.oncely.examples.demo.ProgressBar;
import dev.oncely.examples.server.FaultSpecException;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;

/**
 * {@code demo}, the default command: the Oncely SDK in a child JVM that is SIGKILLed part-way and
 * resumed, against a faulty reference server, then a naive client with the same workload; prints a
 * live progress bar on stderr and the comparison table on stdout. Exits {@link #EXIT_OK} when the
 * SDK made no duplicate charge and lost no intent, {@link #EXIT_FAILURE} otherwise.
 *
 * <p>{@code demo --shop} runs the Oncely-to-Oncely lane instead ({@link
 * dev.oncely.examples.demo.ShopLane}): the client pays through the reference shop on the server
 * half, both SIGKILLed once and restarted; exit {@link #EXIT_OK} when both hops made every
 * payment exactly once.
 */
public final class DemoCommand implements Command {
  private static final Set<String> VALUED = Set.of("intents", "concurrency", "seed", "faults");
  private static final Set<String> FLAGS = Set.of("shop");

  @Override
  public String summary() {
    return "exactly-once SDK (killed and resumed) vs naive retries against a faulty server";
  }

  @Override
  public String usage() {
    return "demo [--intents N] [--concurrency C] [--seed S] [--faults SPEC] [--shop]\n"
        + "  defaults: --intents " + DemoSettings.DEFAULT_INTENTS + " --concurrency "
        + DemoSettings.DEFAULT_CONCURRENCY + " --seed " + DemoSettings.DEFAULT_SEED
        + " --faults " + DemoSettings.DEFAULT_FAULTS + "\n"
        + "  SPEC: drop=P,stall=P,refuse=P,burst503=P,burstlen=N,latency=D,stallfor=D,seed=S"
        + " (P in [0,1], D like 5ms or 2s; the demo's --seed is used unless SPEC has one)\n"
        + "  --shop: the Oncely client pays through the Oncely server half instead (the"
        + " reference shop: Tomcat + MapDB receipts + SQLite payments, charging a provider);"
        + " the client and the shop are each SIGKILLed once and restarted; default --intents "
        + DemoSettings.DEFAULT_SHOP_INTENTS + " (--faults does not apply)";
  }

  @Override
  public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
    DemoSettings settings = configure(args).build();
    boolean shopLane = Options.parse("demo", args, VALUED, FLAGS).has("shop");
    try {
      Demo demo = new Demo(settings, ProgressBar.forStderr(err));
      return shopLane ? demo.runShopLane(out) : demo.run(out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("demo: interrupted");
      return EXIT_FAILURE;
    }
  }

  /**
   * Turns the arguments into settings.
   *
   * @throws UsageException naming the first bad option or faults item
   */
  public static DemoSettings.Builder configure(List<String> args) throws UsageException {
    Options o = Options.parse("demo", args, VALUED, FLAGS);
    long seed = o.longValue("seed", DemoSettings.DEFAULT_SEED);
    int defaultIntents = o.has("shop") ? DemoSettings.DEFAULT_SHOP_INTENTS
        : DemoSettings.DEFAULT_INTENTS;
    DemoSettings.Builder b = DemoSettings.builder()
        .intents(o.intValue("intents", defaultIntents, 1, 1_000_000))
        .concurrency(o.intValue("concurrency", DemoSettings.DEFAULT_CONCURRENCY, 1, 1024))
        .seed(seed);
    try {
      b.faults(DemoSettings.withSeed(o.string("faults", DemoSettings.DEFAULT_FAULTS), seed));
    } catch (FaultSpecException e) {
      throw new UsageException("option --faults of demo: " + e.getMessage());
    }
    return b;
  }
}
