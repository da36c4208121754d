package dev.oncely.examples.demo;

import dev.oncely.examples.cli.Command;
import dev.oncely.examples.server.ReferenceServer;
import dev.oncely.examples.server.ServerStats;
import dev.oncely.examples.shop.ShopStats;
import dev.oncely.testing.EffectLedger;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The demo's Oncely-to-Oncely lane ({@code demo --shop}): the Oncely client pays through the
 * Oncely server half. Three processes: the reference {@code shop} (Tomcat, the server half's
 * filter, receipts in MapDB, payments in SQLite) in a child JVM, charging each payment at the
 * reference payments server in this JVM (its provider); the load driver ({@code run}, then {@code
 * resume}) in another child JVM with its own store. The lane SIGKILLs the client once (when the
 * provider made its {@link #clientKillAt()}-th charge), restarts it with {@code resume}, then
 * SIGKILLs the shop once (the moment the provider made the charge that completes {@link
 * #shopKillShare()} of the rest: that payment is charged and not yet committed) and restarts it
 * on the same files and port while the client keeps retrying; the client finishes. Both kill points are drawn from the seed. Counted
 * at the receiving ends: the shop's payments per order (client to shop) and the provider's
 * charges per order (shop to provider): 0 duplicates and 0 lost on both hops is exit 0.
 */
public final class ShopLane {
  /** The shop's handler lease in the lane: a killed shop's requests are taken over 2 s after. */
  static final String LEASE = "2s";
  /** How often the lane redraws its progress while it waits for a charge or a child. */
  static final Duration TICK = SdkScenario.TICK;
  /** The longest a child may take to start or to finish. */
  static final Duration CHILD_TIMEOUT = SdkScenario.CHILD_TIMEOUT;
  /** How many extra {@code resume} runs finish intents a run left pending. */
  static final int MAX_EXTRA_RESUMES = 3;

  private final DemoSettings settings;
  private final ProgressBar bar;
  private final double clientKillShare;
  private final double shopKillShare;
  private final OkHttpClient http = new OkHttpClient.Builder()
      .retryOnConnectionFailure(false)
      .connectionPool(new okhttp3.ConnectionPool(0, 1, java.util.concurrent.TimeUnit.SECONDS))
      .build();

  /** A lane with {@code settings} (intents, concurrency, seed) reporting on {@code bar}. */
  public ShopLane(DemoSettings settings, ProgressBar bar) {
    this.settings = settings;
    this.bar = bar;
    Random random = new Random(settings.seed() ^ 0x5badcafeL);
    this.clientKillShare = 0.25 + 0.10 * random.nextDouble();
    this.shopKillShare = 0.30 + 0.20 * random.nextDouble();
  }

  /** The client is SIGKILLed once the provider made this many charges. */
  public int clientKillAt() {
    return Math.max(1, (int) Math.round(settings.intents() * clientKillShare));
  }

  /**
   * The share of the payments still to make when the resumed client starts that it makes before
   * the shop is SIGKILLed: counted from the resume, so the shop dies while that client pays
   * (the killed client's requests still in flight finish at the shop first).
   */
  public double shopKillShare() {
    return shopKillShare;
  }

  /** The shop's kill point, when the provider had made {@code madeAtResume} charges at the resume. */
  int shopKillAt(long madeAtResume) {
    long rest = settings.intents() - madeAtResume;
    return (int) Math.min(settings.intents() - 1,
        madeAtResume + Math.max(1, Math.round(rest * shopKillShare)));
  }

  /**
   * Runs the lane.
   *
   * @throws DemoFailedException if a child JVM fails, naming the step and showing its stderr
   */
  public ShopLaneReport run() throws DemoFailedException, InterruptedException {
    long started = System.nanoTime();
    Path dir = createTempDir();
    List<LoadDriverProcess> children = new ArrayList<>();
    try (ReferenceServer provider = ReferenceServer.builder().build().start()) {
      EffectLedger charges = provider.kit().ledger();
      List<String> shopArgs = new ArrayList<>(List.of("--store",
          dir.resolve("shop.db").toString(), "--lease", LEASE, "--provider",
          provider.baseUrl() + "payments"));
      LoadDriverProcess shop = startShop(shopArgs, "0", children);
      String base = shop.awaitFirstLine(Duration.ZERO);
      String port = base.replaceAll(".*:(\\d+)/?$", "$1");
      List<String> clientArgs = List.of("--target", base + "payments",
          "--intents", Integer.toString(settings.intents()),
          "--concurrency", Integer.toString(settings.concurrency()),
          "--store", dir.resolve("client").toString(),
          "--seed", Long.toString(settings.seed()),
          "--attempt-timeout-ms", "5000",
          "--max-attempts", "200",
          "--max-delay-ms", "1000",
          "--deadline-ms", Long.toString(CHILD_TIMEOUT.toMillis()));
      int total = settings.intents();

      // 1. The client runs until the provider charged clientKillAt() payments, then dies by
      // SIGKILL with its requests in flight.
      long clientKilledAt = -1;
      LoadDriverProcess run = start("run", clientArgs, children);
      if (awaitCharges(run, charges, clientKillAt(), "shop lane run",
          "SIGKILL client at " + clientKillAt())) {
        run.killHard();
        clientKilledAt = charges.size();
        bar.finish("shop lane run", clientKilledAt, total, "client SIGKILL (pid " + run.pid()
            + ")");
      } else {
        finishedEarly(run, "run");
      }

      // 2. A new client resumes; the shop dies by SIGKILL the moment the provider made the
      // shopKillAt-th charge (so a payment is charged and not yet committed), and is restarted on
      // its files while the client retries.
      LoadDriverProcess resume = start("resume", clientArgs, children);
      int shopKillAt = shopKillAt(charges.size());
      awaitCharges(resume, charges, shopKillAt, "shop lane resume", "SIGKILL shop at "
          + shopKillAt);
      shop.killHard();
      long shopKilledAt = charges.size();
      bar.finish("shop lane resume", shopKilledAt, total, "shop SIGKILL (pid " + shop.pid()
          + "), restarting it");
      shop = startShop(shopArgs, port, children);
      DriverReport report = finish(resume, charges, "resume");

      // 3. What a run left pending (its attempts spent on the outage) is resumed again.
      for (int extra = 0; report.completed() + report.rejected() < total
          && extra < MAX_EXTRA_RESUMES; extra++) {
        report = finish(start("resume", clientArgs, children), charges, "resume again");
      }
      ShopStats shopStats = stats(base);
      ServerStats providerStats = provider.stats();
      return new ShopLaneReport(total, report.completed(), report.pending(), shopStats,
          providerStats, clientKilledAt, shopKilledAt,
          Duration.ofNanos(System.nanoTime() - started));
    } catch (IOException e) {
      throw new DemoFailedException("could not read the shop's /stats: " + e.getMessage());
    } finally {
      children.forEach(LoadDriverProcess::close);
      deleteQuietly(dir);
    }
  }

  private LoadDriverProcess startShop(List<String> shopArgs, String port,
      List<LoadDriverProcess> children) throws DemoFailedException, InterruptedException {
    List<String> args = new ArrayList<>(shopArgs);
    args.addAll(List.of("--port", port));
    LoadDriverProcess shop = start("shop", args, children);
    String url = shop.awaitFirstLine(CHILD_TIMEOUT);
    if (url == null || !url.startsWith("http://")) {
      shop.close();
      throw new DemoFailedException("the 'shop' child did not start (first line " + url
          + "); its stderr:\n" + shop.stderrTail());
    }
    return shop;
  }

  private LoadDriverProcess start(String subcommand, List<String> args,
      List<LoadDriverProcess> children) {
    LoadDriverProcess child = LoadDriverProcess.start(settings, subcommand, args);
    children.add(child);
    return child;
  }

  /**
   * Shows progress until the provider made {@code target} charges (woken by each charge, so the
   * caller acts within moments of it) or {@code child} exited; returns whether the target was met.
   */
  private boolean awaitCharges(LoadDriverProcess child, EffectLedger charges, int target,
      String label, String note) throws DemoFailedException, InterruptedException {
    long deadline = System.nanoTime() + CHILD_TIMEOUT.toNanos();
    while (!charges.awaitSize(target, TICK)) {
      bar.update(label, charges.size(), settings.intents(), note);
      if (!child.isAlive()) {
        return charges.size() >= target;
      }
      checkDeadline(child, label, deadline);
    }
    return true;
  }

  /** Waits for {@code child} to exit with 0 or 3 and returns its report. */
  private DriverReport finish(LoadDriverProcess child, EffectLedger charges, String label)
      throws DemoFailedException, InterruptedException {
    long deadline = System.nanoTime() + CHILD_TIMEOUT.toNanos();
    while (!child.waitFor(TICK)) {
      bar.update("shop lane " + label, charges.size(), settings.intents(), "shop restarted");
      checkDeadline(child, label, deadline);
    }
    int code = child.awaitExit(TICK);
    bar.finish("shop lane " + label, charges.size(), settings.intents(), "exit " + code);
    if (code != Command.EXIT_OK && code != Command.EXIT_PENDING) {
      throw new DemoFailedException("the '" + label + "' child exited with " + code
          + "; its stderr:\n" + child.stderrTail());
    }
    try {
      return child.report();
    } catch (IllegalArgumentException e) {
      throw new DemoFailedException(e.getMessage() + "; its stderr:\n" + child.stderrTail());
    }
  }

  private void finishedEarly(LoadDriverProcess run, String label)
      throws DemoFailedException, InterruptedException {
    int code = run.awaitExit(TICK);
    if (code != Command.EXIT_OK && code != Command.EXIT_PENDING) {
      throw new DemoFailedException("the '" + label + "' child exited with " + code
          + " before the kill point; its stderr:\n" + run.stderrTail());
    }
    bar.finish("shop lane " + label, settings.intents(), settings.intents(),
        "finished before the kill point");
  }

  private ShopStats stats(String base) throws IOException {
    try (Response r = http.newCall(new Request.Builder().url(base + "stats").build()).execute()) {
      if (r.code() != 200) {
        throw new IOException("GET /stats answered " + r.code());
      }
      return ShopStats.fromJson(r.body().string());
    }
  }

  private static void checkDeadline(LoadDriverProcess child, String label, long deadline)
      throws DemoFailedException, InterruptedException {
    if (System.nanoTime() > deadline) {
      child.killHard();
      throw new DemoFailedException("the '" + label + "' child ran longer than "
          + CHILD_TIMEOUT.toMinutes() + " min; its stderr:\n" + child.stderrTail());
    }
  }

  private static Path createTempDir() {
    try {
      return Files.createTempDirectory("oncely-shop-lane-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the lane's temp directory", e);
    }
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temp directory left behind is harmless; the OS cleans it.
    }
  }
}
