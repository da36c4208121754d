package dev.oncely.examples.cli;

import dev.oncely.client.StoreException;
import dev.oncely.examples.SettingRules;
import dev.oncely.examples.server.ServerDialect;
import dev.oncely.examples.shop.Shop;
import dev.oncely.examples.shop.ShopSettings;
import dev.oncely.examples.shop.WebhookSources;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code shop}: runs the reference {@link Shop} on the server half (embedded Tomcat, receipts in
 * MapDB, payments in SQLite, webhook events through an inbox when secrets are given) on loopback
 * until the process is killed. Prints the base URL as the only line on stdout once it listens, so
 * a parent process can read it. Webhook secrets are never printed, not even in a refusal.
 */
public final class ShopCommand implements Command {
  private static final Set<String> VALUED = Set.of("port", "store", "dialect", "lease",
      "provider", "provider-timeout", "webhook-secret");
  private static final Set<String> REPEATABLE = Set.of("webhook-secret");
  /** Kept so the level set below is not lost when the logger is collected. */
  private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

  @Override
  public String summary() {
    return "run the reference shop on the Oncely server half (Tomcat + MapDB) until killed";
  }

  @Override
  public String usage() {
    return "shop --store FILE [--port P] [--dialect ietf|stripe] [--lease DURATION]"
        + " [--provider URL] [--provider-timeout DURATION] [--webhook-secret NAME=SECRET]...\n"
        + "  --store FILE        receipts in a MapDB store at FILE, payments in SQLite at"
        + " FILE.payments (required)\n"
        + "  --port P            loopback port, 0 for any free one (default "
        + ShopSettings.DEFAULT_PORT + ")\n"
        + "  --dialect D         ietf (quoted key, 409/422 problem+json) or stripe (default"
        + " ietf)\n"
        + "  --lease D           handler lease: a request whose shop died is taken over this"
        + " long after (default " + SettingRules.words(ShopSettings.DEFAULT_LEASE) + ")\n"
        + "  --provider URL      charge every payment there first, through an Oncely client"
        + " (charges kept at FILE.outbound)\n"
        + "  --provider-timeout D  one provider attempt (default "
        + SettingRules.words(ShopSettings.DEFAULT_PROVIDER_TIMEOUT) + ")\n"
        + "  --webhook-secret NAME=SECRET  receive NAME's signed events at POST /webhooks/NAME"
        + " (NAME: " + String.join(", ", WebhookSources.NAMES) + "; repeat it for more sources,"
        + " or for a second secret while one is rotated); the inbox is kept at FILE.inbox\n"
        + "  endpoints: POST /payments (Idempotency-Key; {\"amount\":1000,\"currency\":\"usd\","
        + "\"order\":\"o-1\"}) -> 201 + Location,\n"
        + "             GET /payments/{id}, GET /stats, POST /reset,\n"
        + "             POST /webhooks/{standard,stripe,github} -> 200 accepted|duplicate";
  }

  @Override
  public int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
    ShopSettings settings = configure(args).build();
    TOMCAT_LOG.setLevel(Level.WARNING);
    Shop shop;
    try {
      shop = Shop.builder(settings).build().start();
    } catch (StoreException | UncheckedIOException e) {
      err.println("shop: " + e.getMessage());
      return EXIT_FAILURE;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(shop::close, "oncely-shop-shutdown"));
    out.println(shop.baseUrl());
    out.flush();
    err.println("shop: listening on " + shop.baseUrl() + " (dialect "
        + settings.dialect().name().toLowerCase(Locale.ROOT) + ", receipts " + settings.store()
        + ", payments " + settings.paymentsFile() + ", lease "
        + SettingRules.words(settings.lease()) + ", provider "
        + (settings.provider() == null ? "none" : settings.provider()) + ", webhooks "
        + (settings.webhookSources().isEmpty() ? "none"
            : String.join(", ", settings.webhookSources()) + " (inbox " + settings.inboxFile()
                + ")") + "); stop with Ctrl-C");
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      shop.close();
    }
    return EXIT_OK;
  }

  /**
   * Turns the arguments into settings, checked by the same rules as the builder.
   *
   * @throws UsageException naming the first bad or missing option
   */
  public static ShopSettings.Builder configure(List<String> args) throws UsageException {
    Options o = Options.parse("shop", args, VALUED, Set.of(), REPEATABLE);
    if (!o.has("store")) {
      throw new UsageException("option --store is required for shop");
    }
    ShopSettings.Builder b = ShopSettings.builder()
        .port(o.intValue("port", ShopSettings.DEFAULT_PORT, 0, 65535));
    String store = o.string("store", "");
    try {
      b.store(Paths.get(store));
    } catch (IllegalArgumentException e) { // InvalidPathException included
      throw o.bad("store", store, "a file path");
    }
    String dialect = o.string("dialect", "ietf");
    try {
      b.dialect(dev.oncely.server.ServerDialect.valueOf(ServerDialect.parse(dialect).name()));
    } catch (IllegalArgumentException e) {
      throw o.bad("dialect", dialect, "ietf or stripe");
    }
    Duration lease = o.duration("lease", ShopSettings.DEFAULT_LEASE);
    try {
      b.lease(lease);
    } catch (IllegalArgumentException e) {
      throw o.bad("lease", o.string("lease", ""), "a duration from 1s to 3600s");
    }
    if (o.has("provider")) {
      String provider = o.string("provider", "");
      try {
        b.provider(provider);
      } catch (IllegalArgumentException e) {
        throw o.bad("provider", provider, "an absolute http(s) URL");
      }
    }
    Duration timeout = o.duration("provider-timeout", ShopSettings.DEFAULT_PROVIDER_TIMEOUT);
    try {
      b.providerTimeout(timeout);
    } catch (IllegalArgumentException e) {
      throw o.bad("provider-timeout", o.string("provider-timeout", ""),
          "a duration from 10ms to 60s");
    }
    for (String given : o.strings("webhook-secret")) {
      int eq = given.indexOf('=');
      String name = eq < 0 ? "" : given.substring(0, eq);
      // A refusal never shows the secret, nor a name that is not a source's: a secret given
      // without NAME= may itself hold a '=' (base64 padding).
      if (!WebhookSources.NAMES.contains(name)) {
        throw o.bad("webhook-secret", "<hidden>", "NAME=SECRET with NAME one of "
            + String.join(", ", WebhookSources.NAMES));
      }
      String shown = name + "=<hidden>";
      try {
        b.webhookSecret(name, given.substring(eq + 1));
      } catch (IllegalArgumentException e) {
        throw o.bad("webhook-secret", shown, "a secret the " + name + " scheme takes"
            + (name.equals(WebhookSources.STANDARD) ? " (whsec_ and base64)" : ""));
      }
    }
    return b;
  }
}
