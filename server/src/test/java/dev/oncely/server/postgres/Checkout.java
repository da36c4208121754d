package dev.oncely.server.postgres;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.KeyStrategy;
import dev.oncely.client.RetryPolicy;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.EndpointHandler;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.OutboundIntents;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptRecovery;
import dev.oncely.server.ServerAnswer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The tests' app with an outbound call: {@code POST /orders} inserts the order row, records the
 * provider charge as an Oncely intent (the outbox, keyed by {@code outboundKey("charge")}) and
 * the receipt's recovery point in one transaction, then drives the charge: a final outcome is
 * answered at once, an unknown one leaves the receipt pending with the order as reference.
 */
final class Checkout implements EndpointHandler {
  static final String PROVIDER_SCOPE = "provider";
  static final String CHARGE = "charge";

  private final DataSource dataSource;
  private final PostgresIntentStore intents;
  private final PostgresIntentStore receipts;
  private final IdempotentClient client;
  private final String provider;
  private final AtomicInteger runs = new AtomicInteger();
  /** The outbound key each run derived, in run order. */
  private final List<String> keys = new CopyOnWriteArrayList<>();
  private volatile Orders.Step beforeCommit = (context, connection) -> {};
  private volatile Orders.Step afterCommit = (context, connection) -> {};

  Checkout(DataSource dataSource, PostgresIntentStore intents, PostgresIntentStore receipts,
      IdempotentClient client, String provider) {
    this.dataSource = dataSource;
    this.intents = intents;
    this.receipts = receipts;
    this.client = client;
    this.provider = provider;
  }

  Checkout beforeCommit(Orders.Step step) {
    this.beforeCommit = step;
    return this;
  }

  Checkout afterCommit(Orders.Step step) {
    this.afterCommit = step;
    return this;
  }

  int runs() {
    return runs.get();
  }

  List<String> keys() {
    return keys;
  }

  /** The charge intent of the request {@code receipt} keeps: found again from the receipt. */
  static IntentId chargeOf(Receipt receipt) {
    return IntentId.of(PROVIDER_SCOPE, CHARGE, OutboundIntents.key(receipt, CHARGE));
  }

  /** The app's recovery: settles from the charge's outcome, rendered with the order. */
  ReceiptRecovery recovery() {
    return receipt -> OutboundIntents.decide(client.outcomeOf(chargeOf(receipt)),
        outcome -> render(receipt.reference(), outcome));
  }

  static ServerAnswer render(String order, IntentOutcome charge) {
    if (charge instanceof IntentOutcome.Completed) {
      return ServerAnswer.json(201, "{\"order\":\"" + order + "\",\"charge\":\"succeeded\"}");
    }
    return ServerAnswer.json(402, "{\"order\":\"" + order + "\",\"charge\":\"declined\"}");
  }

  @Override
  public ServerAnswer handle(HandlerContext context) throws Exception {
    runs.incrementAndGet();
    String body = new String(context.request().body(), StandardCharsets.UTF_8);
    String order = body.replaceAll(".*\"order\":\"([^\"]+)\".*", "$1");
    int amount = Integer.parseInt(body.replaceAll(".*\"amount\":(\\d+).*", "$1"));
    String chargeKey = context.outboundKey(CHARGE);
    keys.add(chargeKey);
    IntentRecord charge = client.newRecord(IntentSpec.builder()
        .scope(PROVIDER_SCOPE).operation(CHARGE).post(provider + "/charges")
        .jsonBody("{\"order\":\"" + order + "\",\"amount\":" + amount + "}")
        .keyStrategy(KeyStrategy.existing(chargeKey))
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).build())
        .build());
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      Orders.insert(c, new Orders.Order(order, amount, chargeKey));
      intents.createInTransaction(c, charge);
      try (RecoveryPoint point = PostgresReceipts.effectsCommittedIn(c, receipts, context,
          order)) {
        beforeCommit.run(context, c);
        c.commit();
        point.committed();
      }
      afterCommit.run(context, c);
    }
    IntentOutcome outcome = client.resume(charge.id()).get(60, TimeUnit.SECONDS);
    if (outcome.isFinal()) {
      return render(order, outcome);
    }
    context.pending(order, "the charge's outcome is not known yet");
    return ServerAnswer.json(202, "{\"order\":\"" + order + "\",\"charge\":\"pending\"}");
  }
}
