package dev.oncely.server.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ServerPostgres;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.InboundRequest;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptRecovery;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.RecoveryDecision;
import dev.oncely.server.ServerAnswer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The owner dies on either side of its business commit. After it (the row and the recovery point
 * committed, the answer not stored): the repeat that takes the receipt over completes it from the
 * recovery point, rendered from the row, and never runs the handler again. Before it: neither is
 * there, and an endpoint declared safe to re-run runs the handler again.
 */
class PostgresReceiptsCrashTest {
  static ServerPostgres db;

  @TempDir Path dir;
  PostgresIntentStore receiptStore;
  ReceiptStore receipts;
  /** Past the lease of every receipt written before the test moved it: the owner is gone. */
  final TestClock later = new TestClock();
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
    // The restarted instance keeps its name, so the store lease of the dead one is its own.
    receiptStore = PostgresIntentStore.builder(db.pool()).schema(ServerPostgres.RECEIPTS)
        .owner("instance-a").build();
    receipts = ReceiptStore.on(receiptStore);
    later.advance(Orders.POLICY.lease().plus(Duration.ofMinutes(1)));
  }

  @AfterEach
  void stop() {
    abandoned.shutdownNow();
    receipts.close();
  }

  /** Renders the answer from the order row the recovery point names. */
  private static ReceiptRecovery fromTheRow(AtomicReference<Receipt> asked) {
    return receipt -> {
      asked.set(receipt);
      try {
        return Orders.find(db.pool(), receipt.reference())
            .map(order -> RecoveryDecision.answer(Orders.created(order)))
            .orElseGet(() -> RecoveryDecision.unknown("no order " + receipt.reference()));
      } catch (SQLException e) {
        return RecoveryDecision.unknown("the orders table cannot be read");
      }
    };
  }

  private Receipt receiptOf(String key) {
    return receipts.get(IntentId.of("alice", Orders.POLICY.operation(), key)).orElseThrow();
  }

  /** The first owner: its handler commits, then never returns; its process "dies" (no renewals). */
  private record DeadOwner(Orders handler, CountDownLatch thaw, Future<ServerAnswer> call) {}

  private DeadOwner ownerDiesAfterItsCommit(InboundRequest request) throws Exception {
    CountDownLatch committed = new CountDownLatch(1);
    CountDownLatch thaw = new CountDownLatch(1);
    Orders handler = new Orders(db.pool(), receiptStore).afterCommit((context, c) -> {
      committed.countDown();
      thaw.await();
    });
    IdempotentEndpoints owner = IdempotentEndpoints.builder(receipts).build();
    Future<ServerAnswer> call = abandoned.submit(() -> owner.handle(request, Orders.POLICY,
        handler));
    assertThat(committed.await(60, TimeUnit.SECONDS)).as("the owner committed").isTrue();
    owner.close();
    return new DeadOwner(handler, thaw, call);
  }

  @Test
  void the_repeat_renders_the_answer_from_the_row_and_never_runs_the_handler_again()
      throws Exception {
    InboundRequest request = Orders.request("k1", "o-1", 1200);
    DeadOwner dead = ownerDiesAfterItsCommit(request);
    Receipt left = receiptOf("k1");
    assertThat(left.state()).isEqualTo(ReceiptState.PROCESSING);
    assertThat(left.effectsCommitted()).isTrue();

    AtomicReference<Receipt> asked = new AtomicReference<>();
    Orders repeatHandler = new Orders(db.pool(), receiptStore);
    try (IdempotentEndpoints restarted = IdempotentEndpoints.builder(receipts).clock(later)
        .recovery(fromTheRow(asked)).build()) {
      ServerAnswer answer = restarted.handle(request, Orders.POLICY, repeatHandler);
      assertThat(answer.status()).isEqualTo(201);
      assertThat(new String(answer.body(), StandardCharsets.UTF_8))
          .isEqualTo("{\"order\":\"o-1\",\"amount\":1200}");
      assertThat(asked.get().reference()).isEqualTo("o-1");
      assertThat(restarted.handle(request, Orders.POLICY, repeatHandler).status()).isEqualTo(201);
    }
    assertThat(repeatHandler.runs()).isZero();
    assertThat(dead.handler().runs()).isEqualTo(1);
    assertThat(Orders.count(db.pool())).isEqualTo(1);
    Receipt completed = receiptOf("k1");
    assertThat(completed.state()).isEqualTo(ReceiptState.COMPLETED);

    dead.thaw().countDown();
    assertThat(dead.call().get(60, TimeUnit.SECONDS).status())
        .as("the late owner still answers its own caller").isEqualTo(201);
    assertThat(receiptOf("k1")).as("but its end is fenced out").isEqualTo(completed);
  }

  @Test
  void without_a_recovery_the_repeat_gets_202_and_a_status_url_and_never_a_second_run()
      throws Exception {
    InboundRequest request = Orders.request("k1", "o-1", 1200);
    DeadOwner dead = ownerDiesAfterItsCommit(request);
    Orders repeatHandler = new Orders(db.pool(), receiptStore);
    try (IdempotentEndpoints restarted = IdempotentEndpoints.builder(receipts).clock(later)
        .build()) {
      ServerAnswer first = restarted.handle(request, Orders.POLICY, repeatHandler);
      assertThat(first.status()).isEqualTo(202);
      assertThat(first.header("Location")).startsWith("/oncely/receipts/orders.create/");
      assertThat(restarted.handle(request, Orders.POLICY, repeatHandler).status())
          .isEqualTo(202);
      Receipt pending = receiptOf("k1");
      assertThat(pending.state()).isEqualTo(ReceiptState.PENDING);
      assertThat(pending.reference()).isEqualTo("o-1");

      // An operator, or the app once it can render the answer, settles it.
      assertThat(restarted.settle(pending.id(), Orders.created(
          Orders.find(db.pool(), "o-1").orElseThrow()), Orders.POLICY)).isTrue();
      assertThat(restarted.handle(request, Orders.POLICY, repeatHandler).status())
          .isEqualTo(201);
    }
    assertThat(repeatHandler.runs()).isZero();
    assertThat(Orders.count(db.pool())).isEqualTo(1);
    dead.thaw().countDown();
    dead.call().get(60, TimeUnit.SECONDS);
    assertThat(receiptOf("k1").state()).isEqualTo(ReceiptState.COMPLETED);
  }

  @Test
  void an_instance_killed_after_its_commit_is_completed_from_the_recovery_point_on_restart()
      throws Exception {
    try (ServerPostgres.Child child = ServerPostgres.Child.start(DyingInstanceChild.class,
        List.of(db.url(), "after-commit", "k7", "o-7", "700"), dir, "after-commit")) {
      child.awaitLine("COMMITTED", 120);
      child.kill();
    }
    Receipt left = receiptOf("k7");
    assertThat(left.state()).isEqualTo(ReceiptState.PROCESSING);
    assertThat(left.effectsCommitted()).isTrue();
    assertThat(left.reference()).isEqualTo("o-7");

    AtomicReference<Receipt> asked = new AtomicReference<>();
    Orders repeatHandler = new Orders(db.pool(), receiptStore);
    InboundRequest request = Orders.request("k7", "o-7", 700);
    try (IdempotentEndpoints restarted = IdempotentEndpoints.builder(receipts).clock(later)
        .recovery(fromTheRow(asked)).build()) {
      ServerAnswer answer = restarted.handle(request, Orders.POLICY, repeatHandler);
      assertThat(answer.status()).isEqualTo(201);
      assertThat(new String(answer.body(), StandardCharsets.UTF_8))
          .isEqualTo("{\"order\":\"o-7\",\"amount\":700}");
    }
    assertThat(repeatHandler.runs()).isZero();
    assertThat(Orders.count(db.pool())).isEqualTo(1);
    assertThat(receiptOf("k7").state()).isEqualTo(ReceiptState.COMPLETED);
  }

  /** Starts an instance that writes the row and the recovery point, then is killed uncommitted. */
  private void instanceKilledBeforeItsCommit(String key, String order) throws Exception {
    try (ServerPostgres.Child child = ServerPostgres.Child.start(DyingInstanceChild.class,
        List.of(db.url(), "before-commit", key, order, "700"), dir, "before-commit")) {
      child.awaitLine("WRITTEN", 120);
      child.kill();
    }
  }

  @Test
  void an_instance_killed_before_its_commit_leaves_nothing_and_a_rerun_safe_endpoint_runs_again()
      throws Exception {
    instanceKilledBeforeItsCommit("k8", "o-8");
    Receipt left = receiptOf("k8");
    assertThat(left.state()).isEqualTo(ReceiptState.PROCESSING);
    assertThat(left.effectsCommitted()).isFalse();

    EndpointPolicy rerunSafe = Orders.POLICY.toBuilder().rerunSafe(true).build();
    Orders repeatHandler = new Orders(db.pool(), receiptStore);
    try (IdempotentEndpoints restarted = IdempotentEndpoints.builder(receipts).clock(later)
        .build()) {
      // The dead instance's transaction is rolled back when its connection drops; until then
      // its row lock holds the takeover back.
      ServerAnswer answer = restarted.handle(Orders.request("k8", "o-8", 700), rerunSafe,
          repeatHandler);
      assertThat(answer.status()).isEqualTo(201);
    }
    assertThat(repeatHandler.runs()).isEqualTo(1);
    assertThat(Orders.count(db.pool())).isEqualTo(1);
    Receipt completed = receiptOf("k8");
    assertThat(completed.state()).isEqualTo(ReceiptState.COMPLETED);
    assertThat(completed.runs()).isEqualTo(2);
  }

  @Test
  void an_endpoint_not_declared_rerun_safe_keeps_a_dead_uncommitted_run_pending()
      throws Exception {
    instanceKilledBeforeItsCommit("k9", "o-9");
    Orders repeatHandler = new Orders(db.pool(), receiptStore);
    try (IdempotentEndpoints restarted = IdempotentEndpoints.builder(receipts).clock(later)
        .build()) {
      assertThat(restarted.handle(Orders.request("k9", "o-9", 700), Orders.POLICY,
          repeatHandler).status()).isEqualTo(202);
    }
    assertThat(repeatHandler.runs()).isZero();
    assertThat(Orders.count(db.pool())).isZero();
    assertThat(receiptOf("k9").state()).isEqualTo(ReceiptState.PENDING);
  }
}
