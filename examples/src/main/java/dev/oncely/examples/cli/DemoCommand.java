package dev.oncely.examples.cli;

import dev.oncely.examples.demo.Demo;
import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.FaultSpecException;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code demo}, the default command: the SDK (killed and resumed) against a naive client on the
 * same faulty server, with a table of the results. Exits {@link #EXIT_OK} when the SDK run was
 * exactly once (no duplicate, nothing lost, nothing pending), else {@link #EXIT_FAILURE}.
 */
public final class DemoCommand implements Command {
  private static final Set<String> VALUED =
      Set.of("intents", "concurrency", "faults", "kill-at", "attempt-timeout-ms");

  @Override
  public String summary() {
    return "the SDK, killed and resumed, vs a naive client on a faulty server (default)";
  }

  @Override
  public String usage() {
    return "demo [--intents N] [--concurrency C] [--faults SPEC] [--kill-at SHARE]"
        + " [--attempt-timeout-ms T]\n  defaults: 1000 intents, concurrency 32, kill at 0.4,"
        + " attempt timeout 2000 ms, faults " + Demo.DEFAULT_FAULTS;
  }

  @Override
  public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
    Options o = Options.parse("demo", args, VALUED, Set.of());
    FaultPlan faults;
    try {
      faults = FaultPlan.parse(o.string("faults", Demo.DEFAULT_FAULTS));
    } catch (FaultSpecException e) {
      throw new UsageException("option --faults of demo: " + e.getMessage());
    }
    Demo.Settings settings = new Demo.Settings(
        o.intValue("intents", 1000, 1, 1_000_000),
        o.intValue("concurrency", 32, 1, 1024),
        faults,
        o.share("kill-at", 0.4),
        Duration.ofMillis(o.intValue("attempt-timeout-ms", 2000, 1, 600_000)));
    try {
      Demo.Result result = new Demo(settings, out, err).run();
      return result.exactlyOnce() ? EXIT_OK : EXIT_FAILURE;
    } catch (IOException | RuntimeException e) {
      err.println("demo: failed: " + e);
      return EXIT_FAILURE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("demo: interrupted");
      return EXIT_FAILURE;
    }
  }
}
