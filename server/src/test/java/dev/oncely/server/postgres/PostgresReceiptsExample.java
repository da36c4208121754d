package dev.oncely.server.postgres;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.KeyStrategy;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.EndpointHandler;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.OutboundIntents;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.RecoveryDecision;
import dev.oncely.server.ServerAnswer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The example of {@code docs/server.md} ("Local effects atomic with the receipt"), on the
 * public API only: an order endpoint whose order row, outbound charge intent and receipt recovery
 * point commit in one PostgreSQL transaction. Run by {@link PostgresReceiptsExampleTest}.
 */
final class PostgresReceiptsExample implements EndpointHandler, AutoCloseable {
  // --- wiring
  static final EndpointPolicy CREATE_ORDER = EndpointPolicy.builder("orders.create")
      .rerunSafe(true) // every effect is in the receipt's transaction: a run that died is re-run
      .build();

  private final DataSource dataSource;
  private final PostgresIntentStore intents;  // the app's outbound intents: the outbox
  private final PostgresIntentStore receipts; // the receipts, in a schema of their own
  private final IdempotentClient client;
  private final IdempotentEndpoints endpoints;
  private final String psp;

  PostgresReceiptsExample(DataSource dataSource, String psp) {
    PostgresIntentStore.migrate(dataSource);
    PostgresIntentStore.migrate(dataSource, "oncely_receipts");
    this.dataSource = dataSource;
    this.psp = psp;
    this.intents = PostgresIntentStore.builder(dataSource).build();
    this.receipts = PostgresIntentStore.builder(dataSource).schema("oncely_receipts").build();
    this.client = IdempotentClient.builder().store(intents)
        .scheduleDueWork(Duration.ofSeconds(5)) // drives charges whose instance died
        .build();
    this.endpoints = IdempotentEndpoints.builder(ReceiptStore.on(receipts))
        .recovery(this::recover)
        .build();
  }

  IdempotentEndpoints endpoints() {
    return endpoints;
  }

  // --- the handler: one atomic phase, then the outbound call
  @Override
  public ServerAnswer handle(HandlerContext context) throws Exception {
    String orderId = orderIdOf(context.request().body());
    IntentRecord charge = client.newRecord(IntentSpec.builder()
        .scope("psp").operation("charge").post(psp + "/charges")
        .jsonBody("{\"order\":\"" + orderId + "\",\"amount\":1200}")
        .keyStrategy(KeyStrategy.existing(context.outboundKey("charge")))
        .build());
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      insertOrder(c, orderId);                                  // the business write
      intents.createInTransaction(c, charge);                   // the outbox
      try (RecoveryPoint point = PostgresReceipts.effectsCommittedIn(c, receipts, context,
          orderId)) {                                           // the recovery point
        c.commit();
        point.committed();
      }
    }
    IntentOutcome outcome = client.resume(charge.id()).get(10, TimeUnit.SECONDS);
    if (!outcome.isFinal()) {
      context.pending(orderId, "the charge's outcome is not known yet");
      return ServerAnswer.json(202, "{\"order\":\"" + orderId + "\",\"status\":\"pending\"}");
    }
    return render(orderId, outcome);
  }

  // --- the recovery: a repeat of a request that is pending, or whose owner died after its commit
  RecoveryDecision recover(Receipt receipt) {
    IntentId charge = IntentId.of("psp", "charge", OutboundIntents.key(receipt, "charge"));
    return OutboundIntents.decide(client.outcomeOf(charge),
        outcome -> render(receipt.reference(), outcome));
  }

  static ServerAnswer render(String orderId, IntentOutcome charge) {
    boolean paid = charge instanceof IntentOutcome.Completed;
    return ServerAnswer.json(paid ? 201 : 402, "{\"order\":\"" + orderId + "\",\"status\":\""
        + (paid ? "paid" : "declined") + "\"}");
  }

  // --- the app's own table
  static void createTable(DataSource dataSource) throws SQLException {
    try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(
        "CREATE TABLE IF NOT EXISTS shop_order (id text PRIMARY KEY)")) {
      st.execute();
    }
  }

  private static void insertOrder(Connection c, String orderId) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("INSERT INTO shop_order (id) VALUES (?)")) {
      st.setString(1, orderId);
      st.executeUpdate();
    }
  }

  static int orders(DataSource dataSource) throws SQLException {
    try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(
        "SELECT count(*) FROM shop_order"); ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static String orderIdOf(byte[] body) {
    return new String(body, StandardCharsets.UTF_8).replaceAll(".*\"order\":\"([^\"]+)\".*", "$1");
  }

  @Override
  public void close() {
    endpoints.close();
    client.close();
    receipts.close();
    intents.close();
  }
}
