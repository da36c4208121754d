package dev.oncely.examples.shop;

import dev.oncely.client.IntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.ServerAnswer;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxListener;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.servlet.EndpointRoutes;
import dev.oncely.server.servlet.IdempotencyFilter;
import dev.oncely.server.servlet.WebhookServlet;
import dev.oncely.server.webhook.WebhookReceiver;
import dev.oncely.server.webhook.WebhookVerifier;
import jakarta.servlet.Filter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * The reference shop on the Oncely server half: a real HTTP server (embedded Tomcat, loopback
 * only) whose {@code POST /payments} is an idempotent endpoint served by the server half's
 * {@link IdempotencyFilter}, with receipts in a {@link MapDbIntentStore} and the payments in a
 * durable {@link PaymentLedger}; optionally each payment is first charged at a payment provider
 * through an Oncely client ({@link ProviderCharges}). A payment survives a SIGKILL of the shop at
 * any moment, and a client that repeats its request with the same key after the restart gets the
 * one payment, never a second. With webhook sources ({@link ShopSettings#webhookSources()}), the
 * shop also receives signed events through the server half's {@link WebhookServlet} into an
 * {@link Inbox} of its own, and makes one business effect per event ({@link WebhookLedger}).
 *
 * <h2>Endpoints</h2>
 *
 * <ul>
 *   <li>{@code POST /payments} with {@code Idempotency-Key} and a JSON body {@code
 *       {"amount":1000,"currency":"usd","order":"o-1"}}: {@code 201} + the payment + {@code
 *       Location: /payments/{id}}; a bad amount or currency: {@code 400} (a business refusal,
 *       stored and replayed); the provider declined: {@code 402}; the provider's answer unknown:
 *       {@code 202} + a status URL. The server half answers the rest by its rules: a replay with
 *       {@code Idempotent-Replayed: true}, {@code 409} while the first request runs, the mismatch
 *       answer for another payload under the key, {@code 400} without a key.
 *   <li>{@code GET /payments/{id}}: {@code 200} + the payment, or {@code 404}.
 *   <li>{@code GET /oncely/receipts/payments.create/{token}}: the status URL of a pending payment.
 *   <li>{@code POST /webhooks/standard}, {@code /webhooks/stripe}, {@code /webhooks/github}, for
 *       each configured source: the delivery is verified by the source's scheme ({@code 400} or
 *       {@code 401} with the reason when it is not; nothing is stored), stored once in the inbox
 *       under (source, event id) and answered {@code 200} ({@code accepted}, or {@code duplicate}
 *       for an event stored before); the effect is made after the answer, by the inbox's
 *       workers. A source not configured: {@code 404}.
 *   <li>{@code GET /stats}: {@link ShopStats}. {@code POST /reset}: deletes every payment,
 *       finished receipt, webhook effect and handled inbox message ({@code 409} while any receipt
 *       is processing or pending, or any inbox message queued or processing).
 * </ul>
 *
 * <p>Thread-safe. {@link #start()} once; {@link #close()} stops Tomcat and closes the stores.
 */
public final class Shop implements AutoCloseable {
  /** The operation of every payment receipt. */
  public static final String OPERATION = "payments.create";
  /** The largest accepted {@code POST /payments} body. */
  public static final int MAX_BODY_BYTES = 64 * 1024;

  private final ShopSettings settings;
  private final ReceiptStore receipts;
  private final PaymentLedger ledger;
  private final ProviderCharges provider;
  private final ReceiptCounts counts = new ReceiptCounts();
  private final PaymentAnswers answers;
  private final IdempotentEndpoints endpoints;
  private final EndpointPolicy policy;
  private final Checkout checkout;
  private final ResetGate gate = new ResetGate();
  private final Clock clock;
  /** The webhook side, all null when the shop has no webhook source. */
  private final IntentStore inboxStore;
  private final WebhookLedger webhookLedger;
  private final WebhookCounts webhookCounts = new WebhookCounts();
  private final Inbox inbox;
  private final WebhookReceiver webhooks;
  private Tomcat tomcat;
  private Path tomcatDir;
  private boolean closed;

  private Shop(Builder b, ReceiptStore receipts, PaymentLedger ledger, ProviderCharges provider,
      IntentStore inboxStore, WebhookLedger webhookLedger) {
    this.settings = b.settings;
    this.clock = b.clock;
    this.receipts = receipts;
    this.ledger = ledger;
    this.provider = provider;
    this.answers = new PaymentAnswers(settings.dialect());
    this.policy = EndpointPolicy.builder(OPERATION)
        .lease(settings.lease())
        .maxBodyBytes(MAX_BODY_BYTES)
        .build();
    this.endpoints = IdempotentEndpoints.builder(receipts)
        .dialect(settings.dialect())
        .clock(clock)
        .recovery(new PaymentRecovery(ledger, answers))
        .listener(counts)
        .build();
    this.checkout = new Checkout(ledger, provider, answers, b.probe);
    this.inboxStore = inboxStore;
    this.webhookLedger = webhookLedger;
    if (inboxStore == null) {
      this.inbox = null;
      this.webhooks = null;
    } else {
      Map<String, WebhookVerifier> verifiers = new LinkedHashMap<>();
      settings.webhookSecrets().forEach((source, secrets) ->
          verifiers.put(source, WebhookSources.verifier(source, secrets)));
      // Built last: the inbox's workers start at once, and run what a killed shop left queued.
      InboxListener extra = b.inboxListener;
      Inbox.Builder inboxBuilder = Inbox.builder(inboxStore).lease(settings.lease())
          .clock(clock).listener(event -> {
            webhookCounts.onEvent(event);
            extra.onEvent(event);
          });
      verifiers.keySet().forEach(source -> inboxBuilder.handler(source,
          message -> gate.shared(() -> webhookLedger.apply(message))));
      this.inbox = inboxBuilder.build();
      WebhookReceiver.Builder receiver = WebhookReceiver.builder(inbox).clock(clock)
          .listener(webhookCounts);
      verifiers.forEach(receiver::source);
      this.webhooks = receiver.build();
    }
  }

  /** A builder for a shop with {@code settings}. */
  public static Builder builder(ShopSettings settings) {
    return new Builder(settings);
  }

  /**
   * Binds to the loopback port and starts serving.
   *
   * @return this shop
   * @throws IllegalStateException if already started or closed
   * @throws UncheckedIOException if the port cannot be bound or Tomcat cannot start
   */
  public synchronized Shop start() {
    if (tomcat != null || closed) {
      throw new IllegalStateException(closed ? "the shop is closed" : "the shop is started");
    }
    try {
      // Next to the store, not in the temp directory: a killed shop leaves it behind, and the
      // next one on the same files reuses it.
      tomcatDir = Files.createDirectories(settings.tomcatDir());
      Tomcat t = new Tomcat();
      t.setBaseDir(tomcatDir.toString());
      Connector connector = new Connector();
      connector.setPort(settings.port());
      connector.setProperty("address", InetAddress.getLoopbackAddress().getHostAddress());
      t.setConnector(connector);
      Context context = t.addContext("", tomcatDir.toString());
      context.setLoader(new AppClassLoaderLoader());
      addFilter(context, "reset-gate", gate);
      addFilter(context, "oncely", new IdempotencyFilter(endpoints, EndpointRoutes.builder()
          .route("POST", "/payments", policy).build()));
      Tomcat.addServlet(context, "payments", new PaymentsServlet(checkout, ledger, answers));
      context.addServletMappingDecoded("/payments", "payments");
      context.addServletMappingDecoded("/payments/*", "payments");
      if (webhooks != null) {
        Tomcat.addServlet(context, "webhooks", new WebhookServlet(webhooks));
        context.addServletMappingDecoded("/webhooks/*", "webhooks");
      }
      Tomcat.addServlet(context, "admin", new AdminServlet(this, answers));
      context.addServletMappingDecoded("/", "admin");
      tomcat = t;
      t.start();
      if (connector.getState() != LifecycleState.STARTED || connector.getLocalPort() <= 0) {
        throw new UncheckedIOException(new IOException("cannot bind loopback port "
            + settings.port()));
      }
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the shop: " + e.getMessage(), e);
    } catch (LifecycleException e) {
      stopTomcat();
      throw new UncheckedIOException(new IOException("cannot start Tomcat: " + e.getMessage(),
          e));
    } catch (UncheckedIOException e) {
      stopTomcat();
      throw e;
    }
  }

  /**
   * The bound port.
   *
   * @throws IllegalStateException if not started
   */
  public synchronized int port() {
    if (tomcat == null) {
      throw new IllegalStateException("the shop is not started");
    }
    return tomcat.getConnector().getLocalPort();
  }

  /** The base URL with a trailing slash, {@code http://127.0.0.1:<port>/}. */
  public String baseUrl() {
    return "http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + port() + "/";
  }

  /** The settings. */
  public ShopSettings settings() {
    return settings;
  }

  /** The counters of {@code GET /stats}. */
  public ShopStats stats() {
    PaymentLedger.LedgerCounts c = ledger.counts();
    long processing = 0;
    long pending = 0;
    for (Receipt r : receipts.listUnfinished()) {
      if (r.state() == ReceiptState.PROCESSING) {
        processing++;
      } else if (r.state() == ReceiptState.PENDING) {
        pending++;
      }
    }
    return new ShopStats(c.payments(), c.repeatsFound(), processing, pending, counts.snapshot(),
        c.perKeyHash(), c.perOrder(), webhookStats());
  }

  private WebhookStats webhookStats() {
    if (inbox == null) {
      return WebhookStats.NONE;
    }
    WebhookLedger.Counts c = webhookLedger.counts();
    long queued = 0;
    long processing = 0;
    long dead = 0;
    for (InboxMessage m : inbox.listUnfinished()) {
      switch (m.state()) {
        case QUEUED -> queued++;
        case PROCESSING -> processing++;
        case DEAD -> dead++;
        case HANDLED -> { }
      }
    }
    return new WebhookStats(c.handled(), c.runs(), queued, processing, dead,
        webhookCounts.events(), webhookCounts.refused(), c.perSource(), c.runsPerEvent());
  }

  /**
   * {@code POST /reset}: with no other request or webhook effect running, deletes every payment
   * and finished receipt (and finished provider charge), every webhook effect and handled inbox
   * message, and zeroes the counters; refused ({@code 409}) while a receipt is processing or
   * pending, since its request may still make a payment, or while an inbox message is queued or
   * processing, since its effect is still to come. Dead messages are kept for their operator.
   */
  ServerAnswer reset() {
    return gate.exclusively(() -> {
      int unfinished = receipts.listUnfinished().size();
      if (unfinished > 0 || provider != null && provider.hasUnfinished()) {
        return answers.resetRefused(unfinished + " payment request(s) are still processing or"
            + " pending; repeat them with their keys (or wait for their lease to run out) and"
            + " reset again.");
      }
      long waiting = inbox == null ? 0 : inbox.listUnfinished().stream()
          .filter(m -> m.state() != InboxState.DEAD).count();
      if (waiting > 0) {
        return answers.resetRefused(waiting + " webhook event(s) are still queued or processing;"
            + " wait until the inbox has handled them and reset again.");
      }
      // Far enough ahead that every finished receipt has expired by then.
      Instant farFuture = clock.instant().plus(Duration.ofDays(365L * 100));
      int purged = receipts.purgeExpired(farFuture);
      if (provider != null) {
        provider.purgeFinished(farFuture);
      }
      int deleted = ledger.reset();
      counts.reset();
      int effects = 0;
      if (inbox != null) {
        inboxStore.purgeExpired(farFuture);
        effects = webhookLedger.reset();
        webhookCounts.reset();
      }
      return PaymentAnswers.json(200, "{\"reset\":true,\"paymentsDeleted\":" + deleted
          + ",\"receiptsDeleted\":" + purged + ",\"webhookEventsDeleted\":" + effects + "}");
    });
  }

  /**
   * Stops Tomcat, then closes the endpoints, the inbox (waiting for running effects), the provider
   * client and every store. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<RuntimeException> failures = new ArrayList<>();
    run(failures, this::stopTomcat);
    run(failures, endpoints::close);
    if (inbox != null) {
      run(failures, inbox::close);
    }
    if (provider != null) {
      run(failures, provider::close);
    }
    run(failures, ledger::close);
    if (inboxStore != null) {
      run(failures, inboxStore::close);
    }
    run(failures, receipts::close);
    if (!failures.isEmpty()) {
      RuntimeException first = failures.get(0);
      failures.subList(1, failures.size()).forEach(first::addSuppressed);
      throw first;
    }
  }

  private void stopTomcat() {
    if (tomcat != null) {
      try {
        tomcat.stop();
        tomcat.destroy();
      } catch (LifecycleException e) {
        throw new IllegalStateException("stopping Tomcat failed", e);
      } finally {
        tomcat = null;
        deleteQuietly(tomcatDir);
      }
    }
  }

  private static void addFilter(Context context, String name, Filter filter) {
    FilterDef def = new FilterDef();
    def.setFilterName(name);
    def.setFilter(filter);
    context.addFilterDef(def);
    FilterMap map = new FilterMap();
    map.setFilterName(name);
    map.addURLPattern("/*");
    context.addFilterMap(map);
  }

  private static void run(List<RuntimeException> failures, Runnable step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      failures.add(e);
    }
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temp directory left behind is harmless.
    }
  }

  /** Builds a {@link Shop}. Not thread-safe. */
  public static final class Builder {
    private final ShopSettings settings;
    private ShopProbe probe = ShopProbe.none();
    private IntentStore receiptStore;
    private Clock clock = Clock.systemUTC();
    private InboxListener inboxListener = event -> { };

    private Builder(ShopSettings settings) {
      this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** Hears each step of every payment's handler (default none). */
    public Builder probe(ShopProbe probe) {
      this.probe = Objects.requireNonNull(probe, "probe");
      return this;
    }

    /**
     * The engine the receipts live in, already open, instead of a {@link MapDbIntentStore} at
     * {@link ShopSettings#store()}; the shop closes it. For a store the app decorates (metrics),
     * or another engine.
     */
    public Builder receiptStore(IntentStore store) {
      this.receiptStore = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * Hears every event of the webhook inbox (accepted, duplicate, handled, ...), after the shop's
     * own counters (default none). Called on the thread that did the work: quick, never throwing.
     */
    public Builder inboxListener(InboxListener listener) {
      this.inboxListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** The clock of leases, retention and payment times (default the system's UTC clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Opens the stores and returns a shop that does not listen yet; call {@link Shop#start()}.
     * The receipts are opened first: their owner lock keeps a second shop off the same files.
     *
     * @throws dev.oncely.client.StoreException if a store cannot be opened (locked by another
     *     process, damaged); whatever was opened is closed again
     */
    public Shop build() {
      List<AutoCloseable> opened = new ArrayList<>();
      try {
        IntentStore receiptEngine = receiptStore != null ? receiptStore
            : MapDbIntentStore.open(createParent(settings.store()));
        ReceiptStore receipts = ReceiptStore.on(receiptEngine);
        opened.add(receipts);
        PaymentLedger ledger = PaymentLedger.open(settings.paymentsFile(), clock);
        opened.add(ledger);
        ProviderCharges provider = null;
        if (settings.provider() != null) {
          IntentStore outbound = MapDbIntentStore.open(settings.outboundFile());
          opened.add(outbound);
          provider = new ProviderCharges(settings.provider(), outbound,
              settings.providerTimeout());
          opened.set(opened.size() - 1, provider); // it closes the store with its client
        }
        IntentStore inboxStore = null;
        WebhookLedger webhookLedger = null;
        if (!settings.webhookSources().isEmpty()) {
          inboxStore = MapDbIntentStore.open(settings.inboxFile());
          opened.add(inboxStore);
          webhookLedger = WebhookLedger.on(ledger, clock);
        }
        return new Shop(this, receipts, ledger, provider, inboxStore, webhookLedger);
      } catch (RuntimeException e) {
        for (int i = opened.size() - 1; i >= 0; i--) {
          try {
            opened.get(i).close();
          } catch (Exception suppressed) {
            e.addSuppressed(suppressed);
          }
        }
        throw e;
      }
    }

    private static Path createParent(Path file) {
      try {
        Files.createDirectories(file.getParent());
        return file;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the directory of " + file, e);
      }
    }
  }

  @Override
  public String toString() {
    return "Shop{" + settings + "}";
  }
}
