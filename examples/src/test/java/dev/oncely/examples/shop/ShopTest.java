package dev.oncely.examples.shop;

import dev.oncely.client.InMemoryIntentStore;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.client.IntentId;
import dev.oncely.server.ServerDialect;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference shop in this JVM, on real Tomcat, MapDB and SQLite files, through plain OkHttp:
 * each endpoint's contract, the business refusals, the dialects, restart on the same files, a
 * handler failing past its commit, a frozen owner taken over and completed from the ledger, and
 * the provider charge under a key derived from the receipt.
 */
class ShopTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String K1 = "\"k-1-0123456789abcdef\"";

  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private ShopSettings.Builder settings() {
    return ShopSettings.builder().port(0).store(dir.resolve("shop.db"));
  }

  private Shop start(ShopSettings.Builder settings) {
    return start(Shop.builder(settings.build()));
  }

  private Shop start(Shop.Builder builder) {
    Shop shop = builder.build().start();
    open.add(shop);
    return shop;
  }

  private IdempotentServer provider(FaultScript faults) throws Exception {
    IdempotentServer kit = IdempotentServer.builder()
        .intentOf(IdempotentServer.jsonField("order"))
        .businessRule(r -> r.bodyText().contains("\"amount\":1013") ? "card declined" : null)
        .faults(faults)
        .build();
    MockWebServer web = new MockWebServer();
    web.setDispatcher(kit);
    web.start();
    open.add(web);
    providerUrl = web.url("/charges").toString();
    return kit;
  }

  private String providerUrl;

  @Test
  void a_payment_is_made_once_and_its_repeat_gets_the_stored_answer_byte_for_byte()
      throws Exception {
    Shop shop = start(settings());
    ShopHttp http = new ShopHttp(shop.baseUrl());

    ShopHttp.Answer first = http.pay(K1, ShopHttp.payment(1));
    ShopHttp.Answer repeat = http.pay(K1, ShopHttp.payment(1));

    assertThat(first.status()).isEqualTo(201);
    assertThat(first.replayed()).isNull();
    JsonNode payment = JSON.readTree(first.body());
    assertThat(payment.get("id").asText()).startsWith("pay_");
    assertThat(payment.get("amount").asLong()).isEqualTo(1001);
    assertThat(payment.get("currency").asText()).isEqualTo("jpy");
    assertThat(payment.get("order").asText()).isEqualTo("o-1");
    assertThat(first.location()).isEqualTo("/payments/" + payment.get("id").asText());
    assertThat(repeat.status()).isEqualTo(201);
    assertThat(repeat.replayed()).isEqualTo("true");
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.location()).isEqualTo(first.location());
    ShopHttp.Answer read = http.get(first.location());
    assertThat(read.status()).isEqualTo(200);
    assertThat(JSON.readTree(read.body())).isEqualTo(payment);
    ShopStats stats = http.stats();
    assertThat(stats.effects()).isEqualTo(1);
    assertThat(stats.event("reserved")).isEqualTo(1);
    assertThat(stats.event("replayed")).isEqualTo(1);
  }

  @Test
  void a_key_back_after_its_receipt_was_purged_with_another_payment_is_refused_and_pays_nothing()
      throws Exception {
    InMemoryIntentStore receipts = new InMemoryIntentStore();
    Shop shop = start(Shop.builder(settings().build()).receiptStore(receipts));
    ShopHttp http = new ShopHttp(shop.baseUrl());

    assertThat(http.pay(K1, ShopHttp.payment(1)).status()).isEqualTo(201);
    receipts.purgeExpired(Instant.now().plus(Duration.ofDays(30)));
    ShopHttp.Answer another = http.pay(K1, ShopHttp.payment(2));

    assertThat(another.status()).isEqualTo(422);
    assertThat(new String(another.body(), StandardCharsets.UTF_8))
        .contains("key-reused-after-retention");
    assertThat(http.stats().effects()).isEqualTo(1);
  }

  @Test
  void a_bad_amount_or_currency_is_a_business_400_stored_and_replayed_without_a_payment()
      throws Exception {
    Shop shop = start(settings());
    ShopHttp http = new ShopHttp(shop.baseUrl());

    ShopHttp.Answer amount = http.pay(K1, "{\"amount\":-5,\"currency\":\"usd\"}");
    ShopHttp.Answer again = http.pay(K1, "{\"amount\":-5,\"currency\":\"usd\"}");
    ShopHttp.Answer currency = http.pay("\"k-2-0123456789abcdef\"",
        "{\"amount\":500,\"currency\":\"xyz\"}");

    assertThat(amount.status()).isEqualTo(400);
    assertThat(amount.contentType()).isEqualTo("application/problem+json");
    assertThat(JSON.readTree(amount.body()).get("detail").asText()).startsWith("amount must be");
    assertThat(again.status()).isEqualTo(400);
    assertThat(again.replayed()).isEqualTo("true");
    assertThat(again.body()).isEqualTo(amount.body());
    assertThat(currency.status()).isEqualTo(400);
    assertThat(JSON.readTree(currency.body()).get("detail").asText()).startsWith("currency");
    assertThat(http.stats().effects()).isZero();
  }

  @Test
  void the_key_with_another_payload_is_refused_in_the_dialect_and_the_payment_is_untouched()
      throws Exception {
    Shop ietf = start(settings());
    ShopHttp http = new ShopHttp(ietf.baseUrl());
    ShopHttp.Answer first = http.pay(K1, ShopHttp.payment(1));

    ShopHttp.Answer other = http.pay(K1, ShopHttp.payment(2));

    assertThat(other.status()).isEqualTo(422);
    assertThat(other.contentType()).isEqualTo("application/problem+json");
    assertThat(http.pay(K1, ShopHttp.payment(1)).body()).isEqualTo(first.body());
    assertThat(http.stats().effects()).isEqualTo(1);
  }

  @Test
  void the_stripe_dialect_reads_plain_keys_and_answers_a_mismatch_with_idempotency_error()
      throws Exception {
    Shop shop = start(settings().dialect(ServerDialect.STRIPE));
    ShopHttp http = new ShopHttp(shop.baseUrl());

    ShopHttp.Answer first = http.pay("k-plain-0123456789", ShopHttp.payment(1));
    ShopHttp.Answer other = http.pay("k-plain-0123456789", ShopHttp.payment(2));
    ShopHttp.Answer refused = http.pay("k-plain-abcdef0123", "{\"amount\":0,\"currency\":\"usd\"}");

    assertThat(first.status()).isEqualTo(201);
    assertThat(other.status()).isEqualTo(400);
    assertThat(JSON.readTree(other.body()).at("/error/type").asText())
        .isEqualTo("idempotency_error");
    assertThat(refused.status()).isEqualTo(400);
    assertThat(JSON.readTree(refused.body()).at("/error/param").asText()).isEqualTo("amount");
  }

  @Test
  void a_payment_without_a_key_is_refused_before_anything_is_made() throws Exception {
    Shop shop = start(settings());
    ShopHttp http = new ShopHttp(shop.baseUrl());

    ShopHttp.Answer keyless = http.pay(null, ShopHttp.payment(1));

    assertThat(keyless.status()).isEqualTo(400);
    assertThat(http.stats().effects()).isZero();
    assertThat(http.stats().event("reserved")).isZero();
  }

  @Test
  void stats_count_effects_per_key_hash_and_per_order_and_never_show_a_key() throws Exception {
    Shop shop = start(settings());
    ShopHttp http = new ShopHttp(shop.baseUrl());
    http.pay(K1, ShopHttp.payment(1));
    http.pay("\"k-2-0123456789abcdef\"", ShopHttp.payment(1)); // a client that minted a new key

    ShopHttp.Answer raw = http.get("/stats");
    ShopStats stats = ShopStats.fromJson(raw.text());

    assertThat(stats.effects()).isEqualTo(2);
    assertThat(stats.duplicates()).isEqualTo(1);
    assertThat(stats.effectsPerOrder()).containsEntry("o-1", 2L);
    String hash = IntentId.of("anonymous", Shop.OPERATION, "k-1-0123456789abcdef").safeKey();
    assertThat(stats.effectsPerKeyHash()).containsEntry(hash, 1L).hasSize(2);
    assertThat(raw.text()).doesNotContain("k-1-0123456789abcdef")
        .doesNotContain("k-2-0123456789abcdef");
  }

  @Test
  void reset_deletes_payments_and_receipts_so_the_same_key_pays_again() throws Exception {
    Shop shop = start(settings());
    ShopHttp http = new ShopHttp(shop.baseUrl());
    ShopHttp.Answer first = http.pay(K1, ShopHttp.payment(1));

    ShopHttp.Answer reset = http.post("/reset");
    ShopHttp.Answer after = http.pay(K1, ShopHttp.payment(1));

    assertThat(reset.status()).as(reset.text()).isEqualTo(200);
    assertThat(JSON.readTree(reset.body()).get("paymentsDeleted").asInt()).isEqualTo(1);
    assertThat(http.get(first.location()).status()).isEqualTo(404);
    assertThat(after.status()).isEqualTo(201);
    assertThat(after.replayed()).isNull();
    assertThat(after.location()).isNotEqualTo(first.location());
    assertThat(http.stats().effects()).isEqualTo(1);
  }

  @Test
  void payments_and_receipts_survive_a_restart_on_the_same_files() throws Exception {
    Shop first = start(settings());
    ShopHttp.Answer paid = new ShopHttp(first.baseUrl()).pay(K1, ShopHttp.payment(1));
    first.close();

    Shop second = start(settings());
    ShopHttp http = new ShopHttp(second.baseUrl());
    ShopHttp.Answer repeat = http.pay(K1, ShopHttp.payment(1));

    assertThat(repeat.status()).isEqualTo(201);
    assertThat(repeat.replayed()).isEqualTo("true");
    assertThat(repeat.body()).isEqualTo(paid.body());
    assertThat(http.get(paid.location()).status()).isEqualTo(200);
    assertThat(http.stats().effects()).isEqualTo(1);
  }

  @Test
  void a_handler_that_fails_right_after_its_business_commit_never_pays_twice() throws Exception {
    AtomicBoolean failOnce = new AtomicBoolean(true);
    Shop shop = start(Shop.builder(settings().build()).probe((step, order) -> {
      if (step == ShopStep.BUSINESS_COMMITTED && failOnce.getAndSet(false)) {
        throw new IllegalStateException("failure injected after the business commit");
      }
    }));
    ShopHttp http = new ShopHttp(shop.baseUrl());

    ShopHttp.Answer failed = http.pay(K1, ShopHttp.payment(1));
    ShopHttp.Answer retry = http.pay(K1, ShopHttp.payment(1));

    // The receipt was released (no recovery point yet), so the retry ran the handler again: the
    // ledger handed it the payment the failed run had committed.
    assertThat(failed.status()).isEqualTo(500);
    assertThat(retry.status()).isEqualTo(201);
    ShopStats stats = http.stats();
    assertThat(stats.effects()).isEqualTo(1);
    assertThat(stats.repeatsFound()).isEqualTo(1);
    assertThat(stats.event("released")).isEqualTo(1);
  }

  @Test
  void a_frozen_owner_past_its_business_commit_is_taken_over_and_completed_from_the_ledger()
      throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    CountDownLatch committed = new CountDownLatch(1);
    CountDownLatch thaw = new CountDownLatch(1);
    // An hour's lease: the renewal timer (every 20 minutes) never runs during the test, so only
    // the clock moved below lets the lease run out.
    Shop shop = start(Shop.builder(settings().lease(Duration.ofHours(1)).build()).clock(clock)
        .probe((step, order) -> {
          if (step == ShopStep.BUSINESS_COMMITTED && committed.getCount() > 0) {
            committed.countDown();
            await(thaw);
          }
        }));
    ShopHttp http = new ShopHttp(shop.baseUrl());
    CompletableFuture<ShopHttp.Answer> frozen = CompletableFuture.supplyAsync(() -> {
      try {
        return http.pay(K1, ShopHttp.payment(1));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    assertThat(committed.await(20, TimeUnit.SECONDS)).isTrue();

    ShopHttp.Answer whileLeased = http.pay(K1, ShopHttp.payment(1));
    clock.advance(Duration.ofHours(2));
    ShopHttp.Answer takeover = http.pay(K1, ShopHttp.payment(1));
    thaw.countDown();
    ShopHttp.Answer owner = frozen.get(20, TimeUnit.SECONDS);
    ShopHttp.Answer replay = http.pay(K1, ShopHttp.payment(1));

    assertThat(whileLeased.status()).isEqualTo(409);
    assertThat(takeover.status()).as(takeover.text()).isEqualTo(201);
    assertThat(owner.status()).isEqualTo(201);
    assertThat(JSON.readTree(owner.body()).get("id"))
        .isEqualTo(JSON.readTree(takeover.body()).get("id"));
    assertThat(replay.replayed()).isEqualTo("true");
    assertThat(replay.body()).isEqualTo(takeover.body());
    ShopStats stats = http.stats();
    assertThat(stats.effects()).isEqualTo(1);
    assertThat(stats.repeatsFound()).isZero();
    assertThat(stats.event("recovered")).isEqualTo(1);
    assertThat(stats.event("fencedOut")).isEqualTo(1);
  }

  @Test
  void the_provider_is_charged_once_per_payment_under_a_key_derived_from_the_receipt()
      throws Exception {
    IdempotentServer provider = provider(FaultScript.none());
    Shop shop = start(settings().provider(providerUrl));
    ShopHttp http = new ShopHttp(shop.baseUrl());

    ShopHttp.Answer paid = http.pay(K1, ShopHttp.payment(1));
    ShopHttp.Answer repeat = http.pay(K1, ShopHttp.payment(1));

    assertThat(paid.status()).isEqualTo(201);
    assertThat(JSON.readTree(paid.body()).get("provider_charge").asText()).startsWith("op_");
    assertThat(repeat.body()).isEqualTo(paid.body());
    assertThat(provider.ledger().countOf("o-1")).isEqualTo(1);
    assertThat(provider.ledger().keysOf("o-1")).hasSize(1)
        .doesNotContain("k-1-0123456789abcdef");
  }

  @Test
  void an_unknown_provider_outcome_is_a_202_with_a_status_url_until_a_repeat_completes_it()
      throws Exception {
    IdempotentServer provider = provider(FaultScript.builder()
        .withProbability(Fault.dropAfterCommit(), 1.0).build());
    Shop shop = start(settings().provider(providerUrl).providerTimeout(Duration.ofSeconds(1)));
    ShopHttp http = new ShopHttp(shop.baseUrl());

    ShopHttp.Answer accepted = http.pay(K1, ShopHttp.payment(1));
    ShopHttp.Answer status = http.get(accepted.location());
    ShopStats pending = http.stats();
    provider.changeFaults(FaultScript.none());
    ShopHttp.Answer repeat = http.pay(K1, ShopHttp.payment(1));
    ShopHttp.Answer polled = http.get(accepted.location());

    assertThat(accepted.status()).as(accepted.text()).isEqualTo(202);
    assertThat(accepted.location()).startsWith("/oncely/receipts/" + Shop.OPERATION + "/");
    assertThat(accepted.retryAfter()).isNotNull();
    assertThat(status.status()).isEqualTo(202);
    assertThat(pending.pendingReceipts()).isEqualTo(1);
    assertThat(pending.effects()).isZero();
    assertThat(repeat.status()).as(repeat.text()).isEqualTo(201);
    assertThat(polled.status()).isEqualTo(201);
    assertThat(polled.body()).isEqualTo(repeat.body());
    assertThat(provider.ledger().countOf("o-1")).isEqualTo(1);
    assertThat(http.stats().effects()).isEqualTo(1);
  }

  @Test
  void a_declined_charge_is_a_402_stored_and_replayed_without_a_payment() throws Exception {
    provider(FaultScript.none());
    Shop shop = start(settings().provider(providerUrl));
    ShopHttp http = new ShopHttp(shop.baseUrl());

    ShopHttp.Answer declined = http.pay(K1, ShopHttp.payment(13));
    ShopHttp.Answer again = http.pay(K1, ShopHttp.payment(13));

    assertThat(declined.status()).isEqualTo(402);
    assertThat(again.replayed()).isEqualTo("true");
    assertThat(again.body()).isEqualTo(declined.body());
    assertThat(http.stats().effects()).isZero();
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never released the handler");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A clock the test moves. */
  private static final class MutableClock extends Clock {
    private volatile Instant now;

    MutableClock(Instant start) {
      this.now = start;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
