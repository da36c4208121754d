package dev.oncely.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.client.IntentId;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ReceiptStore;
import dev.oncely.testing.IdempotentServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import mockwebserver3.MockWebServer;

/**
 * The fixtures of the server kill tests: the payment provider ({@link ProviderGate} over the
 * testing kit's idempotent server, in this JVM so its ledger outlives every shop), the shop's
 * files in the test's directory, the one {@link ShopProcess} running on them at a time (always
 * on the port the first one bound, so clients keep their URL), a signal that tells waiting clients
 * a new shop is up, and the check of the files once no shop runs.
 */
final class ShopKillRig implements AutoCloseable {
  /** The handler lease: a killed shop's requests are taken over a second after. */
  static final String LEASE = "1s";

  final Path dir;
  final Path store;
  final IdempotentServer provider;
  final ProviderGate gate;
  private final MockWebServer providerServer = new MockWebServer();
  private final Object lock = new Object();
  private int port;
  private int runs;
  private long generation;
  private boolean up;
  private String baseUrl;

  private ShopKillRig(Path dir) throws IOException {
    this.dir = dir;
    this.store = dir.resolve("shop.db");
    this.provider = IdempotentServer.builder()
        .intentOf(IdempotentServer.jsonField("order"))
        .build();
    this.gate = new ProviderGate(provider);
    providerServer.setDispatcher(gate);
    providerServer.start();
  }

  static ShopKillRig start(Path dir) throws IOException {
    return new ShopKillRig(dir);
  }

  /** Starts a shop on the files (halting at {@code halt}, or null) and tells waiting clients. */
  ShopProcess startShop(String halt) throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(List.of("--store", store.toString(), "--port",
        Integer.toString(port), "--lease", LEASE, "--provider",
        providerServer.url("/charges").toString(), "--provider-timeout", "5s"));
    ShopProcess shop = ShopProcess.start(dir, "shop-" + runs++, args, halt);
    synchronized (lock) {
      port = shop.port();
      baseUrl = shop.baseUrl();
      generation++;
      up = true;
      lock.notifyAll();
    }
    return shop;
  }

  /** Records that the shop is gone (killed or halted). */
  void markDown() {
    synchronized (lock) {
      up = false;
    }
  }

  /** The shops' base URL (the same port every time). */
  String baseUrl() {
    synchronized (lock) {
      return baseUrl;
    }
  }

  /** The number of the shop running now: it changes with every restart. */
  long generation() {
    synchronized (lock) {
      return generation;
    }
  }

  /**
   * Waits until a shop newer than {@code seen} is up, at most {@code max} (a client honouring
   * {@code Retry-After}, or resending after a refused connection, wakes early for a restart).
   */
  void awaitNewer(long seen, Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    synchronized (lock) {
      for (long left = max.toNanos(); left > 0 && !(up && generation > seen);
          left = deadline - System.nanoTime()) {
        lock.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  /**
   * Checks the files once no shop runs: every order has exactly one payment, under its own key
   * hash; every key's receipt is completed and its stored answer is that payment; the provider
   * charged every order exactly once.
   *
   * @param keys the idempotency key of each order
   */
  void verifyFiles(Map<String, String> keys) throws IOException {
    ObjectMapper json = new ObjectMapper();
    try (ReceiptStore receipts = ReceiptStore.on(MapDbIntentStore.open(store));
        PaymentLedger ledger = PaymentLedger.open(
            store.resolveSibling(store.getFileName() + ".payments"), Clock.systemUTC())) {
      PaymentLedger.LedgerCounts counts = ledger.counts();
      assertThat(counts.perOrder()).as("payments per order").hasSize(keys.size())
          .allSatisfy((order, n) -> assertThat(n).as(order).isEqualTo(1L));
      assertThat(counts.payments()).isEqualTo(keys.size());
      for (Map.Entry<String, String> e : keys.entrySet()) {
        IntentId id = IntentId.of("anonymous", Shop.OPERATION, e.getValue());
        Receipt receipt = receipts.get(id).orElseThrow(
            () -> new AssertionError("no receipt for " + e.getKey()));
        assertThat(receipt.state()).as("receipt of %s: %s", e.getKey(), receipt.reason())
            .isEqualTo(ReceiptState.COMPLETED);
        Payment payment = ledger.byReceipt(receipt.statusToken()).orElseThrow(
            () -> new AssertionError("no payment for the receipt of " + e.getKey()));
        assertThat(payment.order()).isEqualTo(e.getKey());
        assertThat(payment.keyHash()).isEqualTo(id.safeKey());
        assertThat(receipt.answer().status()).isEqualTo(201);
        assertThat(json.readTree(receipt.answer().body()).get("id").asText())
            .as("the stored answer of %s names its payment", e.getKey())
            .isEqualTo(payment.id());
        assertThat(counts.perKeyHash()).containsEntry(id.safeKey(), 1L);
      }
    }
    for (String order : keys.keySet()) {
      assertThat(provider.ledger().countOf(order)).as("provider charges of %s", order)
          .isEqualTo(1);
    }
  }

  @Override
  public void close() {
    gate.release();
    providerServer.close();
  }
}
