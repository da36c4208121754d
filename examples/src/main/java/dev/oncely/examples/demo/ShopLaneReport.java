package dev.oncely.examples.demo;

import dev.oncely.examples.server.ServerStats;
import dev.oncely.examples.shop.ShopStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What the {@link ShopLane} did, counted where the effects happen: the shop's payments per order
 * (the client-to-shop hop) and the provider's charges per order (the shop-to-provider hop), with
 * the client's own view and the two kills.
 *
 * @param intents payment intents the client was asked for
 * @param completed intents the client saw completed (its last report, from its store)
 * @param pending intents the client still reports as unknown
 * @param shop the shop's counters at the end (its events count since its restart)
 * @param provider the provider's counters at the end
 * @param clientKilledAt payments the shop had made when the client was SIGKILLed, or -1
 * @param shopKilledAt payments the shop had made when it was SIGKILLed
 * @param wall the lane's wall time, JVM starts, kills and restarts included
 */
public record ShopLaneReport(long intents, long completed, long pending, ShopStats shop,
    ServerStats provider, long clientKilledAt, long shopKilledAt, Duration wall) {
  /** Checks the components are present. */
  public ShopLaneReport {
    Objects.requireNonNull(shop, "shop");
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(wall, "wall");
  }

  /** Payments beyond the first for one order at the shop. */
  public long shopDuplicates() {
    return shop.duplicates();
  }

  /** Intents with no payment at the shop. */
  public long shopLost() {
    return Math.max(0, intents - shop.effectsPerOrder().size());
  }

  /** Charges beyond the first for one order at the provider. */
  public long providerDuplicates() {
    return provider.duplicates();
  }

  /** Intents with no charge at the provider. */
  public long providerLost() {
    return Math.max(0, intents - provider.effectsPerOrder().size());
  }

  /** Whether both hops made every payment exactly once. */
  public boolean exactlyOnce() {
    return shopDuplicates() == 0 && shopLost() == 0 && providerDuplicates() == 0
        && providerLost() == 0;
  }

  /** The lane's table and verdict, one line end after each line. */
  public String render() {
    List<String> lines = new ArrayList<>();
    lines.add(row("", "client -> shop", "shop -> provider"));
    lines.add("-".repeat(38 + 2 * 20));
    lines.add(row("intents", num(intents), num(intents)));
    lines.add(row("completed (client's view)", num(completed)
        + (pending > 0 ? " (+" + pending + " unknown)" : ""), ""));
    lines.add(row("business effects (counted there)", num(shop.effects()),
        num(provider.effects())));
    lines.add(row("duplicates", num(shopDuplicates()), num(providerDuplicates())));
    lines.add(row("lost", num(shopLost()), num(providerLost())));
    lines.add(row("replays (shop: since its restart)", num(shop.event("replayed")),
        num(provider.replays())));
    lines.add(row("client JVM SIGKILLed", clientKilledAt < 0 ? "no (finished first)"
        : "at " + num(clientKilledAt) + "/" + num(intents), ""));
    lines.add(row("shop JVM SIGKILLed", "at " + num(shopKilledAt) + "/" + num(intents), ""));
    lines.add(row("  after restart: takeover events", num(shop.event("takenOver")), ""));
    lines.add(row("  after restart: recovered from ledger", num(shop.event("recovered")), ""));
    lines.add(row("wall time", String.format(Locale.ROOT, "%.1f s", wall.toMillis() / 1000.0),
        ""));
    lines.add("");
    lines.add(exactlyOnce()
        ? "Oncely client -> Oncely server: every payment made exactly once across a client"
            + " SIGKILL and a server SIGKILL (0 duplicates, 0 lost, on both hops)."
        : String.format(Locale.ROOT, "FAILED: the shop made %,d duplicate payments and lost"
            + " %,d; the provider %,d and %,d.", shopDuplicates(), shopLost(),
            providerDuplicates(), providerLost()));
    StringBuilder sb = new StringBuilder();
    for (String l : lines) {
      sb.append(l.stripTrailing()).append(System.lineSeparator());
    }
    return sb.toString();
  }

  private static String row(String label, String a, String b) {
    return String.format("%-38s%20s%20s", label, a, b);
  }

  private static String num(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
