package dev.oncely.examples.cli;

import dev.oncely.examples.server.FaultPlan;
import dev.oncely.examples.server.FaultSpecException;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerDialect;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * {@code server}: runs a {@link ReferenceServer} on loopback until the process is killed. Prints
 * the base URL as the only line on stdout once it listens, so a parent process can read it.
 */
public final class ServerCommand implements Command {
  private static final Set<String> VALUED =
      Set.of("port", "dialect", "faults", "slow", "slow-for", "retry-after");
  private static final Set<String> FLAGS = Set.of("accept-keyless");

  @Override
  public String summary() {
    return "run the reference payments server until killed";
  }

  @Override
  public String usage() {
    return "server [--port P] [--dialect ietf|stripe] [--faults SPEC] [--slow SHARE]"
        + " [--slow-for DURATION] [--retry-after SECONDS] [--accept-keyless]\n"
        + "  SPEC: drop=P,stall=P,refuse=P,burst503=P,burstlen=N,latency=D,stallfor=D,seed=S"
        + " (P in [0,1], D like 5ms or 2s)";
  }

  @Override
  public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
    ReferenceServer server;
    try {
      server = configure(args).build().start();
    } catch (UncheckedIOException e) {
      err.println("server: " + e.getMessage());
      return EXIT_FAILURE;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "oncely-ref-shutdown"));
    out.println(server.baseUrl());
    out.flush();
    err.println("server: listening on " + server.baseUrl() + " (dialect "
        + server.dialect().name().toLowerCase(Locale.ROOT) + ", faults "
        + server.faults().toSpec() + "); stop with Ctrl-C");
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      server.close();
    }
    return EXIT_OK;
  }

  /**
   * Turns the arguments into a configured, unstarted server builder.
   *
   * @throws UsageException naming the first bad option or faults item
   */
  public static ReferenceServer.Builder configure(List<String> args) throws UsageException {
    Options o = Options.parse("server", args, VALUED, FLAGS);
    ReferenceServer.Builder b = ReferenceServer.builder()
        .port(o.intValue("port", 0, 0, 65535))
        .slowShare(o.share("slow", 0.0))
        .retryAfterSeconds(
            o.intValue("retry-after", ReferenceServer.DEFAULT_RETRY_AFTER_SECONDS, 0, 3600))
        .acceptKeyless(o.has("accept-keyless"));
    try {
      b.slowFor(o.duration("slow-for", ReferenceServer.DEFAULT_SLOW_FOR));
    } catch (IllegalArgumentException e) {
      throw o.bad("slow-for", o.string("slow-for", ""), "a duration up to 10 minutes");
    }
    String dialect = o.string("dialect", "ietf");
    try {
      b.dialect(ServerDialect.parse(dialect));
    } catch (IllegalArgumentException e) {
      throw o.bad("dialect", dialect, "ietf or stripe");
    }
    if (o.has("faults")) {
      try {
        b.faults(FaultPlan.parse(o.string("faults", "")));
      } catch (FaultSpecException e) {
        throw new UsageException("option --faults of server: " + e.getMessage());
      }
    }
    return b;
  }
}
