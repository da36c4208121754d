package dev.oncely.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.testing.ServedAnswer;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shop's JVM killed where it hurts, restarted on the same files, and its clients' retries:
 * exactly one payment (and one provider charge) per key, every receipt completed with that
 * payment as its answer, never a second effect.
 *
 * <p>Why here: the shop (embedded Tomcat + the server half's filter + MapDB receipts + the SQLite
 * ledger) lives in {@code examples}, so only this module's tests can start it in a child JVM;
 * the server module cannot depend on it. The child is {@link ShopKillChild}: the shipped {@code
 * shop} command's options and {@link Shop}, plus a halt point that only the test's child reads.
 *
 * <p>{@link #a_kill_at_each_named_point_leaves_one_payment_and_a_completed_receipt} halts the
 * shop at each named point once: before the reservation commits, after it, mid-handler, during
 * the outbound provider charge (a SIGKILL while the provider holds its answer), after the charge,
 * between the business commit and the recovery point, and between the recovery point and the
 * stored answer. {@link #seeded_kills_under_concurrent_clients_leave_one_payment_per_order} kills
 * it at seeded moments (SIGKILL after a seeded number of steps, or a halt at the n-th occurrence
 * of a step) while plain OkHttp clients and an Oncely {@code IdempotentClient} pay concurrently.
 *
 * <p>{@code -Doncely.crash.kills=N} sets the seeded kills (default {@value #DEFAULT_KILLS}),
 * {@code -Doncely.crash.seed=S} replays a run.
 */
class ShopServerKillTest {
  private static final int DEFAULT_KILLS = 4;
  private static final int KILLS = Integer.getInteger("oncely.crash.kills", DEFAULT_KILLS);
  private static final long SEED = Long.getLong("oncely.crash.seed", 20260601L);
  private static final Duration PATIENCE = Duration.ofMinutes(3);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom KEYS = new SecureRandom();
  private static final List<String> STEPS = List.of("RESERVE", "RESERVED", "HANDLER_STARTED",
      "PROVIDER_ANSWERED", "BUSINESS_COMMITTED", "RECOVERY_POINT_RECORDED");

  @TempDir Path dir;

  /** One named kill point: how the test arms it, and what the restarted shop must do about it. */
  private record Point(String name, String where, Recovery expected) {}

  private enum Recovery { NONE_NEEDED, HANDLER_RUN_AGAIN, COMPLETED_FROM_LEDGER }

  @Test
  void a_kill_at_each_named_point_leaves_one_payment_and_a_completed_receipt() throws Exception {
    List<Point> points = List.of(
        new Point("RESERVE", "before the reservation commits", Recovery.NONE_NEEDED),
        new Point("RESERVED", "after the reservation, before the handler",
            Recovery.HANDLER_RUN_AGAIN),
        new Point("HANDLER_STARTED", "mid-handler, before any effect",
            Recovery.HANDLER_RUN_AGAIN),
        new Point("PROVIDER_CALL", "during the provider charge (charged, answer unread)",
            Recovery.HANDLER_RUN_AGAIN),
        new Point("PROVIDER_ANSWERED", "after the provider charged, before the business commit",
            Recovery.HANDLER_RUN_AGAIN),
        new Point("BUSINESS_COMMITTED", "between the business commit and the recovery point",
            Recovery.COMPLETED_FROM_LEDGER),
        new Point("RECOVERY_POINT_RECORDED", "between the recovery point and the stored answer",
            Recovery.COMPLETED_FROM_LEDGER));
    // Even points pay through plain OkHttp with the test's keys, odd ones through the Oncely
    // client, whose specs (and keys) are built once the shop's URL is known.
    Map<String, String> keys = new LinkedHashMap<>();
    for (int i = 0; i < points.size(); i += 2) {
      keys.put("o-" + i, newKey());
    }
    try (ShopKillRig rig = ShopKillRig.start(dir);
        InMemoryIntentStore clientStore = new InMemoryIntentStore();
        IdempotentClient oncely = oncelyClient(clientStore)) {
      ShopProcess shop = rig.startShop(haltSpec(points.get(0), 0, keys));
      Map<Integer, IntentSpec> specs = new LinkedHashMap<>();
      for (int i = 1; i < points.size(); i += 2) {
        specs.put(i, spec(rig, i));
        keys.put("o-" + i, specs.get(i).key());
      }
      PlainPayer plain = new PlainPayer(rig);
      for (int i = 0; i < points.size(); i++) {
        Point point = points.get(i);
        String order = "o-" + i;
        String context = point.name() + " (" + point.where() + ")";
        boolean byOncely = i % 2 == 1;
        if (point.name().equals("PROVIDER_CALL")) {
          rig.gate.hold(order);
        }
        CompletableFuture<IntentOutcome> viaOncely = null;
        CompletableFuture<ShopHttp.Answer> viaPlain = null;
        if (byOncely) {
          viaOncely = oncely.submit(specs.get(i));
        } else {
          String key = keys.get(order);
          String body = ShopHttp.payment(i);
          viaPlain = CompletableFuture.supplyAsync(() -> {
            try {
              return plain.payOnce(key, body);
            } catch (java.io.IOException e) {
              return null; // the shop died under the request: the expected outcome
            }
          });
        }
        int status;
        if (point.name().equals("PROVIDER_CALL")) {
          assertThat(rig.gate.awaitCharged()).as(context).isTrue();
          status = shop.kill();
          rig.gate.release();
        } else {
          status = shop.awaitExit();
        }
        rig.markDown();
        assertThat(status).as("%s: exit status; stderr: %s", context, shop.stderrText())
            .isEqualTo(ShopKillChild.HALT_STATUS);
        if (viaPlain != null) {
          assertThat(viaPlain.get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
              .as("%s: the first attempt got no answer", context).isNull();
        }

        shop = rig.startShop(i + 1 < points.size() ? haltSpec(points.get(i + 1), i + 1, keys)
            : null);

        ShopHttp.Answer paid;
        if (byOncely) {
          IntentOutcome outcome = viaOncely.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
          assertThat(outcome).as(context).isInstanceOf(IntentOutcome.Completed.class);
          IntentOutcome.Completed done = (IntentOutcome.Completed) outcome;
          paid = new ShopHttp.Answer(done.response().status(), done.response().body(), null,
              done.response().header("Location"), null, null);
        } else {
          paid = plain.payUntilFinal(keys.get(order), ShopHttp.payment(i), PATIENCE);
        }
        assertThat(paid.status()).as("%s: %s", context, paid.text()).isEqualTo(201);
        assertThat(JSON.readTree(paid.body()).get("order").asText()).isEqualTo(order);
        ShopHttp http = new ShopHttp(rig.baseUrl());
        assertThat(http.get(paid.location()).status()).as(context).isEqualTo(200);
        ShopHttp.Answer replay = http.pay("\"" + keys.get(order) + "\"", ShopHttp.payment(i));
        assertThat(replay.replayed()).as(context).isEqualTo("true");
        assertThat(replay.body()).as(context).isEqualTo(paid.body());

        ShopStats stats = http.stats();
        assertThat(stats.effectsPerOrder()).as(context).containsEntry(order, 1L);
        assertThat(stats.repeatsFound()).as("%s: no handler ran past a committed payment",
            context).isZero();
        switch (point.expected()) {
          case NONE_NEEDED -> assertThat(stats.event("takenOver") + stats.event("recovered"))
              .as(context).isZero();
          case HANDLER_RUN_AGAIN -> {
            assertThat(stats.event("takenOver")).as(context).isPositive();
            assertThat(stats.event("recovered")).as(context).isZero();
          }
          case COMPLETED_FROM_LEDGER -> assertThat(stats.event("recovered")).as(context)
              .isEqualTo(1);
        }
        int replays = rig.provider.answersOf(order, ServedAnswer.Kind.REPLAY);
        if (point.name().equals("PROVIDER_CALL")) {
          assertThat(replays).as("%s: the charge was resent with its key and replayed", context)
              .isPositive();
        } else if (point.name().equals("PROVIDER_ANSWERED")) {
          assertThat(replays).as("%s: the shop's outbound store answered the rerun", context)
              .isZero();
        }
      }
      ShopStats last = new ShopHttp(rig.baseUrl()).stats();
      assertThat(last.effects()).isEqualTo(points.size());
      assertThat(last.duplicates()).isZero();
      assertThat(last.processingReceipts() + last.pendingReceipts()).isZero();
      shop.kill();
      rig.markDown();
      rig.verifyFiles(keys);
    }
  }

  @Test
  void seeded_kills_under_concurrent_clients_leave_one_payment_per_order() throws Exception {
    long started = System.nanoTime();
    Random random = new Random(SEED);
    int orders = Math.max(24, KILLS * 6);
    int maxStep = Math.max(2, orders / (2 * KILLS));
    Map<String, String> keys = new LinkedHashMap<>();
    try (ShopKillRig rig = ShopKillRig.start(dir);
        InMemoryIntentStore clientStore = new InMemoryIntentStore();
        IdempotentClient oncely = oncelyClient(clientStore)) {
      ShopProcess shop = rig.startShop(null);
      // Three plain OkHttp payers take the even orders, three Oncely payers the odd ones, each
      // one order at a time, so the shop always has a few requests in flight to be killed under.
      ConcurrentLinkedQueue<Integer> plainOrders = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<Integer> oncelyOrders = new ConcurrentLinkedQueue<>();
      Map<Integer, IntentOutcome> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
      for (int i = 0; i < orders; i++) {
        if (i % 2 == 0) {
          keys.put("o-" + i, newKey());
          plainOrders.add(i);
        } else {
          oncelyOrders.add(i);
        }
      }
      PlainPayer plain = new PlainPayer(rig);
      List<CompletableFuture<?>> work = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        work.add(CompletableFuture.runAsync(() -> {
          for (Integer i = plainOrders.poll(); i != null; i = plainOrders.poll()) {
            try {
              ShopHttp.Answer a = plain.payUntilFinal(keys.get("o-" + i), ShopHttp.payment(i),
                  PATIENCE);
              assertThat(a.status()).as("o-%d: %s", i, a.text()).isEqualTo(201);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException(e);
            }
          }
        }));
        work.add(CompletableFuture.runAsync(() -> {
          for (Integer i = oncelyOrders.poll(); i != null; i = oncelyOrders.poll()) {
            outcomes.put(i, payThroughOncely(oncely, spec(rig, i)));
          }
        }));
      }
      CompletableFuture<Void> all = CompletableFuture.allOf(work.toArray(CompletableFuture[]::new));

      int sigkills = 0;
      int halts = 0;
      String armed = null;
      while (sigkills + halts < KILLS && !all.isDone()) {
        if (armed != null) {
          CompletableFuture.anyOf(shop.onExit(), all).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
          if (shop.isAlive()) {
            break; // the workload ended before the armed point came
          }
          assertThat(shop.awaitExit()).as("halt at %s; stderr: %s", armed, shop.stderrText())
              .isEqualTo(ShopKillChild.HALT_STATUS);
          halts++;
        } else {
          String step = STEPS.get(random.nextInt(STEPS.size()));
          int after = 1 + random.nextInt(maxStep);
          ShopProcess running = shop;
          all.whenComplete((v, e) -> running.interrupt());
          if (!awaitSteps(shop, step, after)) {
            break; // the workload ended first
          }
          shop.kill();
          sigkills++;
        }
        rig.markDown();
        armed = random.nextBoolean() ? null
            : STEPS.get(random.nextInt(STEPS.size())) + "#" + (1 + random.nextInt(maxStep));
        shop = rig.startShop(armed);
      }
      if (armed != null && shop.isAlive()) {
        // The last shop must not halt: restart it without a halt point to finish the work.
        shop.kill();
        rig.markDown();
        shop = rig.startShop(null);
      }
      try {
        all.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        throw new AssertionError("a client failed; shop stderr: " + shop.stderrText(),
            e.getCause());
      }
      for (Map.Entry<Integer, IntentOutcome> e : outcomes.entrySet()) {
        IntentOutcome outcome = e.getValue();
        assertThat(outcome).as("o-%d", e.getKey()).isInstanceOf(IntentOutcome.Completed.class);
        assertThat(((IntentOutcome.Completed) outcome).response().status()).isEqualTo(201);
        keys.put("o-" + e.getKey(), outcome.id().key());
      }
      assertThat(outcomes).hasSize(orders / 2);
      ShopStats stats = new ShopHttp(rig.baseUrl()).stats();
      assertThat(stats.effects()).as(stats.toString()).isEqualTo(orders);
      assertThat(stats.duplicates()).isZero();
      shop.kill();
      rig.markDown();
      rig.verifyFiles(new java.util.TreeMap<>(keys));
      System.out.printf("shop kill test: %d SIGKILLs + %d halts survived, %d orders (half plain"
          + " OkHttp, half IdempotentClient), %d payments, %d provider charges, %d ms, seed %d%n",
          sigkills, halts, orders, stats.effects(), rig.provider.ledger().size(),
          (System.nanoTime() - started) / 1_000_000, SEED);
      assertThat(sigkills + halts).as("kills before the workload ended")
          .isGreaterThanOrEqualTo(Math.min(KILLS, 1));
    }
  }

  /**
   * Executes {@code spec} until it completes, within {@link #PATIENCE}: an outcome still pending
   * (the shop was down longer than a drive's deadline) is executed again, which continues the
   * same record with its key, as an app's resume would.
   */
  private static IntentOutcome payThroughOncely(IdempotentClient oncely, IntentSpec spec) {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    IntentOutcome outcome = oncely.execute(spec);
    while (outcome instanceof IntentOutcome.Pending && System.nanoTime() < deadline) {
      outcome = oncely.execute(spec);
    }
    return outcome;
  }

  /** Reads the child's lines until {@code after} lines of {@code step}; false if it ended. */
  private static boolean awaitSteps(ShopProcess shop, String step, int after)
      throws InterruptedException {
    for (int seen = 0; seen < after; seen++) {
      if (shop.awaitLine(l -> l.startsWith("STEP " + step + " ")) == null) {
        return false;
      }
    }
    return true;
  }

  /** The halt point that makes the shop stop at {@code point} for order {@code i}. */
  private static String haltSpec(Point point, int i, Map<String, String> keys) {
    return switch (point.name()) {
      case "PROVIDER_CALL" -> null; // the test kills the shop while the provider holds
      case "RESERVE", "RESERVED" -> point.name() + "@"
          + IntentId.of("anonymous", Shop.OPERATION, keys.get("o-" + i)).safeKey();
      default -> point.name() + "@o-" + i;
    };
  }

  private static IntentSpec spec(ShopKillRig rig, int i) {
    return IntentSpec.builder()
        .operation("pay")
        .scope("kill-test")
        .post(rig.baseUrl() + "payments")
        .jsonBody(ShopHttp.payment(i))
        .businessId("o-" + i)
        .build();
  }

  private static IdempotentClient oncelyClient(InMemoryIntentStore store) {
    return IdempotentClient.builder()
        .store(store)
        .dialect(Dialects.ietf())
        .retryPolicy(RetryPolicy.builder()
            .maxAttempts(500)
            .baseDelay(Duration.ofMillis(100))
            .maxDelay(Duration.ofSeconds(1))
            .attemptTimeout(Duration.ofSeconds(30))
            .deadline(PATIENCE)
            .build())
        .retryBudget(RetryBudget.unlimited())
        .build();
  }

  private static String newKey() {
    byte[] b = new byte[16];
    KEYS.nextBytes(b);
    return "k" + HexFormat.of().formatHex(b);
  }
}
