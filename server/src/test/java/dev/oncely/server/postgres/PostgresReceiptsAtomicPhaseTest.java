package dev.oncely.server.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentId;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ServerPostgres;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.InboundRequest;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptFencedException;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.ServerAnswer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The atomic phase on PostgreSQL: the handler's business row and its receipt's recovery point
 * commit in one transaction, or neither does.
 */
class PostgresReceiptsAtomicPhaseTest {
  static ServerPostgres db;

  PostgresIntentStore receiptStore;
  ReceiptStore receipts;
  IdempotentEndpoints endpoints;
  Orders orders;

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
    receiptStore = PostgresIntentStore.builder(db.pool()).schema(ServerPostgres.RECEIPTS)
        .owner("instance-a").build();
    receipts = ReceiptStore.on(receiptStore);
    endpoints = IdempotentEndpoints.builder(receipts).build();
    orders = new Orders(db.pool(), receiptStore);
  }

  @AfterEach
  void stop() {
    endpoints.close();
    receipts.close();
  }

  private Receipt receiptOf(String key) {
    return receipts.get(IntentId.of("alice", Orders.POLICY.operation(), key)).orElseThrow();
  }

  private static String text(ServerAnswer answer) {
    return new String(answer.body(), StandardCharsets.UTF_8);
  }

  @Test
  void a_committed_recovery_point_is_in_the_receipt_and_repeats_replay_the_answer()
      throws Exception {
    orders.afterCommit((context, c) -> {
      Receipt stored = receiptOf("k1");
      assertThat(stored.state()).isEqualTo(ReceiptState.PROCESSING);
      assertThat(stored.effectsCommitted()).isTrue();
      assertThat(stored.reference()).isEqualTo("o-1");
      assertThat(context.receipt()).isEqualTo(stored);
    });
    ServerAnswer first = endpoints.handle(Orders.request("k1", "o-1", 1200), Orders.POLICY,
        orders);
    assertThat(first.status()).isEqualTo(201);
    ServerAnswer repeat = endpoints.handle(Orders.request("k1", "o-1", 1200), Orders.POLICY,
        orders);
    assertThat(repeat.status()).isEqualTo(201);
    assertThat(text(repeat)).isEqualTo(text(first));
    assertThat(repeat.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(orders.runs()).isEqualTo(1);
    assertThat(Orders.count(db.pool())).isEqualTo(1);
    assertThat(receiptOf("k1").state()).isEqualTo(ReceiptState.COMPLETED);
  }

  @Test
  void a_throw_before_the_commit_leaves_no_row_releases_the_receipt_and_the_repeat_runs_once()
      throws Exception {
    orders.beforeCommit((context, c) -> {
      if (orders.runs() == 1) {
        throw new IllegalStateException("the handler fails before its commit");
      }
    });
    InboundRequest request = Orders.request("k1", "o-1", 1200);
    assertThatThrownBy(() -> endpoints.handle(request, Orders.POLICY, orders))
        .hasMessage("the handler fails before its commit");
    assertThat(Orders.count(db.pool())).isZero();
    Receipt released = receiptOf("k1");
    assertThat(released.state()).isEqualTo(ReceiptState.RELEASED);
    assertThat(released.effectsCommitted()).isFalse();

    assertThat(endpoints.handle(request, Orders.POLICY, orders).status()).isEqualTo(201);
    assertThat(Orders.count(db.pool())).isEqualTo(1);
    assertThat(endpoints.handle(request, Orders.POLICY, orders).status()).isEqualTo(201);
    assertThat(orders.runs()).isEqualTo(2);
    assertThat(Orders.count(db.pool())).isEqualTo(1);
    Receipt completed = receiptOf("k1");
    assertThat(completed.state()).isEqualTo(ReceiptState.COMPLETED);
    assertThat(completed.reference()).isEqualTo("o-1");
  }

  @Test
  void a_run_that_lost_its_receipt_is_fenced_and_its_business_row_rolls_back() throws Exception {
    orders.beforeRecoveryPoint((context, c) -> {
      // Another run took the receipt over while this one was frozen past its lease.
      Receipt owned = context.receipt();
      assertThat(receipts.replace(owned, owned.toBuilder().revision(owned.revision() + 1)
          .lease(owned.leaseUntil(), "another-run").build())).isTrue();
    });
    assertThatThrownBy(() -> endpoints.handle(Orders.request("k1", "o-1", 1200), Orders.POLICY,
        orders)).isInstanceOf(ReceiptFencedException.class);
    assertThat(Orders.count(db.pool())).isZero();
    Receipt stored = receiptOf("k1");
    assertThat(stored.leaseOwner()).as("the other run's receipt is untouched")
        .isEqualTo("another-run");
    assertThat(stored.effectsCommitted()).isFalse();
  }

  @Test
  void an_unprotected_request_commits_its_row_without_a_receipt() throws Exception {
    EndpointPolicy optional = Orders.POLICY.toBuilder().keyRequired(false).build();
    InboundRequest keyless = InboundRequest.builder("POST", "/orders")
        .header("Content-Type", "application/json")
        .body("{\"order\":\"o-9\",\"amount\":5}".getBytes(StandardCharsets.UTF_8))
        .principal("alice").build();
    assertThat(endpoints.handle(keyless, optional, orders).status()).isEqualTo(201);
    assertThat(Orders.count(db.pool())).isEqualTo(1);
    assertThat(receipts.listUnfinished()).isEmpty();
  }

  @Test
  void a_connection_in_auto_commit_mode_is_refused_before_anything_is_written() throws Exception {
    ServerAnswer answer = endpoints.handle(Orders.request("k1", "o-1", 1200), Orders.POLICY,
        context -> {
          try (Connection c = db.pool().getConnection()) {
            assertThatThrownBy(() -> PostgresReceipts.effectsCommittedIn(c, receiptStore, context,
                "o-1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("auto-commit");
          }
          assertThat(context.renewLease()).as("no change was left open").isTrue();
          return ServerAnswer.json(200, "{}");
        });
    assertThat(answer.status()).isEqualTo(200);
    assertThat(receiptOf("k1").effectsCommitted()).isFalse();
  }

  @Test
  void a_store_that_does_not_hold_the_receipt_is_refused_and_the_transaction_rolls_back()
      throws Exception {
    try (PostgresIntentStore intents = PostgresIntentStore.builder(db.pool()).build()) {
      Orders wrongStore = new Orders(db.pool(), intents);
      assertThatThrownBy(() -> endpoints.handle(Orders.request("k1", "o-1", 1200), Orders.POLICY,
          wrongStore)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is not in")
          .hasMessageNotContaining("k1");
    }
    assertThat(Orders.count(db.pool())).isZero();
    assertThat(receiptOf("k1").state()).isEqualTo(ReceiptState.RELEASED);
  }
}
