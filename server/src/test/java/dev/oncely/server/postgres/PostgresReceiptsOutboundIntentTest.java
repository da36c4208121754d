package dev.oncely.server.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ServerPostgres;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.InboundRequest;
import dev.oncely.server.OutboundIntents;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.ServerAnswer;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An outbound provider call recorded as an Oncely intent in the handler's business transaction
 * (the outbox): while the intent is pending the receipt is pending with the order as its
 * reference, and the intent's outcome settles it; the provider sees one key, derived from the
 * inbound request, on every attempt and every run.
 */
class PostgresReceiptsOutboundIntentTest {
  static ServerPostgres db;

  final MockWebServer server = new MockWebServer();
  IdempotentServer provider;
  PostgresIntentStore intents;
  PostgresIntentStore receiptStore;
  ReceiptStore receipts;
  IdempotentClient client;
  final ExecutorService abandoned = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "dead-owner");
    t.setDaemon(true);
    return t;
  });

  @BeforeAll
  static void database() {
    db = ServerPostgres.create();
    Orders.createTable(db);
  }

  @AfterAll
  static void closeDatabase() {
    db.close();
  }

  @BeforeEach
  void start() {
    db.truncateStores();
    db.execute("TRUNCATE orders");
    intents = PostgresIntentStore.builder(db.pool()).owner("instance-a").build();
    receiptStore = PostgresIntentStore.builder(db.pool()).schema(ServerPostgres.RECEIPTS)
        .owner("instance-a").build();
    receipts = ReceiptStore.on(receiptStore);
    client = IdempotentClient.builder().store(intents).build();
  }

  @AfterEach
  void stop() throws Exception {
    abandoned.shutdownNow();
    client.close();
    receipts.close();
    intents.close();
    server.close();
  }

  private String startProvider(FaultScript faults) throws Exception {
    provider = IdempotentServer.builder().intentOf(IdempotentServer.jsonField("order"))
        .faults(faults).build();
    server.setDispatcher(provider);
    server.start();
    return server.url("/").toString().replaceAll("/$", "");
  }

  private Checkout checkout(String base) {
    return new Checkout(db.pool(), intents, receiptStore, client, base);
  }

  private Receipt receiptOf(String key) {
    return receipts.get(IntentId.of("alice", Orders.POLICY.operation(), key)).orElseThrow();
  }

  private static String text(ServerAnswer answer) {
    return new String(answer.body(), StandardCharsets.UTF_8);
  }

  /** The key every request the provider received carried, unquoted. */
  private List<String> keysTheProviderSaw() {
    return provider.requests().all().stream().map(r -> r.header("Idempotency-Key"))
        .map(k -> k.replace("\"", "")).toList();
  }

  @Test
  void a_pending_charge_keeps_the_receipt_pending_until_its_outcome_settles_it()
      throws Exception {
    Checkout app = checkout(startProvider(FaultScript.builder()
        .onRequest(1, Fault.dropAfterCommit()).build()));
    InboundRequest request = Orders.request("k1", "o-1", 1200);
    try (IdempotentEndpoints endpoints = IdempotentEndpoints.builder(receipts)
        .recovery(app.recovery()).build()) {
      ServerAnswer first = endpoints.handle(request, Orders.POLICY, app);
      assertThat(first.status()).isEqualTo(202);
      assertThat(first.header("Location")).startsWith("/oncely/receipts/orders.create/");
      Receipt pending = receiptOf("k1");
      assertThat(pending.state()).isEqualTo(ReceiptState.PENDING);
      assertThat(pending.reference()).isEqualTo("o-1");
      assertThat(pending.effectsCommitted()).isTrue();
      assertThat(provider.ledger().countOf("o-1")).as("the provider charged; its answer was lost")
          .isEqualTo(1);

      assertThat(endpoints.handle(request, Orders.POLICY, app).status())
          .as("the recovery asks the client: the charge is still pending").isEqualTo(202);

      IntentOutcome charge = client.resume(Checkout.chargeOf(pending)).get(60, TimeUnit.SECONDS);
      assertThat(charge).isInstanceOf(IntentOutcome.Completed.class);
      ServerAnswer settled = endpoints.handle(request, Orders.POLICY, app);
      assertThat(settled.status()).isEqualTo(201);
      assertThat(text(settled)).isEqualTo("{\"order\":\"o-1\",\"charge\":\"succeeded\"}");
      assertThat(receiptOf("k1").state()).isEqualTo(ReceiptState.COMPLETED);
      assertThat(text(endpoints.handle(request, Orders.POLICY, app))).isEqualTo(text(settled));
    }
    assertThat(app.runs()).isEqualTo(1);
    assertThat(Orders.count(db.pool())).isEqualTo(1);
    assertThat(provider.ledger().countOf("o-1")).isEqualTo(1);
    assertThat(keysTheProviderSaw()).hasSize(2).containsOnly(app.keys().get(0));
    assertThat(Orders.find(db.pool(), "o-1").orElseThrow().chargeKey())
        .isEqualTo(app.keys().get(0));
  }

  @Test
  void a_charge_that_finishes_settles_the_receipt_before_any_repeat() throws Exception {
    Checkout app = checkout(startProvider(FaultScript.builder()
        .onRequest(1, Fault.dropAfterCommit()).build()));
    InboundRequest request = Orders.request("k1", "o-1", 1200);
    try (IdempotentEndpoints endpoints = IdempotentEndpoints.builder(receipts).build()) {
      assertThat(endpoints.handle(request, Orders.POLICY, app).status()).isEqualTo(202);
      Receipt pending = receiptOf("k1");
      boolean settled = client.resume(Checkout.chargeOf(pending))
          .thenApply(outcome -> OutboundIntents.settle(endpoints, pending.id(), Orders.POLICY,
              outcome, o -> Checkout.render("o-1", o)))
          .get(60, TimeUnit.SECONDS);
      assertThat(settled).isTrue();
      ServerAnswer repeat = endpoints.handle(request, Orders.POLICY, app);
      assertThat(repeat.status()).isEqualTo(201);
      assertThat(repeat.header("Idempotent-Replayed")).isEqualTo("true");
    }
    assertThat(app.runs()).isEqualTo(1);
    assertThat(provider.ledger().countOf("o-1")).isEqualTo(1);
  }

  @Test
  void the_charge_key_is_the_same_when_a_released_request_runs_again() throws Exception {
    Checkout app = checkout(startProvider(FaultScript.none()));
    app.beforeCommit((context, c) -> {
      if (app.runs() == 1) {
        throw new IllegalStateException("the handler fails before its commit");
      }
    });
    InboundRequest request = Orders.request("k1", "o-1", 1200);
    try (IdempotentEndpoints endpoints = IdempotentEndpoints.builder(receipts).build()) {
      assertThatThrownBy(() -> endpoints.handle(request, Orders.POLICY, app))
          .hasMessage("the handler fails before its commit");
      assertThat(intents.listUnfinished()).as("the charge rolled back with the order").isEmpty();
      assertThat(provider.requests().all()).isEmpty();
      assertThat(endpoints.handle(request, Orders.POLICY, app).status()).isEqualTo(201);
    }
    assertThat(app.runs()).isEqualTo(2);
    assertThat(app.keys()).hasSize(2).containsOnly(app.keys().get(0));
    assertThat(keysTheProviderSaw()).containsExactly(app.keys().get(0));
    assertThat(provider.ledger().countOf("o-1")).isEqualTo(1);
    assertThat(Orders.count(db.pool())).isEqualTo(1);
  }

  @Test
  void after_the_owner_died_past_its_commit_the_charge_drives_on_and_settles_the_receipt()
      throws Exception {
    Checkout app = checkout(startProvider(FaultScript.none()));
    CountDownLatch committed = new CountDownLatch(1);
    CountDownLatch thaw = new CountDownLatch(1);
    app.afterCommit((context, c) -> {
      committed.countDown();
      thaw.await();
    });
    InboundRequest request = Orders.request("k1", "o-1", 1200);
    IdempotentEndpoints owner = IdempotentEndpoints.builder(receipts).build();
    Future<ServerAnswer> ownerCall = abandoned.submit(() -> owner.handle(request, Orders.POLICY,
        app));
    assertThat(committed.await(60, TimeUnit.SECONDS)).isTrue();
    owner.close();
    assertThat(provider.requests().all()).as("the owner died before it sent the charge")
        .isEmpty();

    TestClock later = new TestClock();
    later.advance(Orders.POLICY.lease().plus(Duration.ofMinutes(1)));
    Checkout repeatApp = checkout(server.url("/").toString().replaceAll("/$", ""));
    try (IdempotentEndpoints restarted = IdempotentEndpoints.builder(receipts).clock(later)
        .recovery(app.recovery()).build()) {
      ServerAnswer first = restarted.handle(request, Orders.POLICY, repeatApp);
      assertThat(first.status()).as("the charge is not sent yet").isEqualTo(202);
      Receipt pending = receiptOf("k1");
      assertThat(pending.state()).isEqualTo(ReceiptState.PENDING);

      // What any instance's due-work scheduler does once the dead owner's lease ran out.
      assertThat(client.resume(Checkout.chargeOf(pending)).get(60, TimeUnit.SECONDS))
          .isInstanceOf(IntentOutcome.Completed.class);
      ServerAnswer settled = restarted.handle(request, Orders.POLICY, repeatApp);
      assertThat(settled.status()).isEqualTo(201);
      assertThat(text(settled)).isEqualTo("{\"order\":\"o-1\",\"charge\":\"succeeded\"}");
    }
    assertThat(repeatApp.runs()).isZero();
    thaw.countDown();
    assertThat(ownerCall.get(60, TimeUnit.SECONDS).status()).isEqualTo(201);
    assertThat(receiptOf("k1").state()).isEqualTo(ReceiptState.COMPLETED);
    assertThat(provider.ledger().countOf("o-1")).isEqualTo(1);
    assertThat(keysTheProviderSaw()).containsOnly(app.keys().get(0));
    assertThat(Orders.count(db.pool())).isEqualTo(1);
  }
}
