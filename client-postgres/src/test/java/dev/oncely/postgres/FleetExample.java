package dev.oncely.postgres;

import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The README's "Running a fleet" example: one instance of a fleet (every instance runs the same
 * code on the same database), placing an order and its payment intent in one transaction.
 * {@code FleetExampleTest} runs it against a real server.
 */
final class FleetExample {
  private FleetExample() {}

  static IntentOutcome placeOrder(DataSource dataSource, String paymentsUrl, String orderId)
      throws SQLException {
    PostgresIntentStore store = PostgresIntentStore.builder(dataSource) // the app's own pool
        .migrate(true)                   // or Flyway with locations=classpath:db/oncely
        .lease(Duration.ofSeconds(30))   // a dead instance's intents move on after this
        .build();
    try (IdempotentClient client = IdempotentClient.builder().store(store).build();
        DueWorkScheduler scheduler = DueWorkScheduler.builder(client).build()) {
      scheduler.start();                 // drives due intents of the fleet, one instance each

      IntentRecord payment = client.newRecord(IntentSpec.builder()
          .scope("shop")
          .operation("create-payment")
          .post(paymentsUrl)
          .jsonBody("{\"order\":\"" + orderId + "\",\"amount\":990,\"currency\":\"JPY\"}")
          .businessId(orderId)           // unique per scope and operation, by a DB constraint
          .build());
      try (Connection c = dataSource.getConnection()) {
        c.setAutoCommit(false);
        try (PreparedStatement st = c.prepareStatement("INSERT INTO orders (id) VALUES (?)")) {
          st.setString(1, orderId);
          st.executeUpdate();
        }
        store.createInTransaction(c, payment);  // same transaction as the order row
        c.commit();                             // rollback = the payment is never sent
      }
      // Drive it now; if this process dies first, another instance's scheduler will.
      return client.resume(payment.id()).join();
    } finally {
      store.close();
    }
  }
}
