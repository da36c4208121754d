package dev.oncely.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.examples.cli.ShopCommand;
import dev.oncely.server.inbox.InboxEvent;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference shop receiving webhooks: started from its command line with {@code
 * --webhook-secret}, on real Tomcat, MapDB and SQLite files, with Standard Webhooks deliveries
 * (and Stripe and GitHub deliveries) signed by the test's own HMAC code ({@link WebhookSenders}) and sent with plain OkHttp.
 * Each event's effect is made once however often it is delivered, refusals store nothing, and
 * {@code GET /stats} reports both beside the payments.
 */
class ShopWebhooksTest {
  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();
  private final BlockingQueue<InboxEvent> events = new LinkedBlockingQueue<>();
  private final WebhookSenders.Standard sender = WebhookSenders.Standard.random();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private Shop start(String... webhookSecrets) throws Exception {
    List<String> args = new ArrayList<>(List.of("--store", dir.resolve("shop.db").toString(),
        "--port", "0"));
    for (String s : webhookSecrets) {
      args.add("--webhook-secret");
      args.add(s);
    }
    Shop shop = Shop.builder(ShopCommand.configure(args).build()).inboxListener(events::add)
        .build().start();
    open.add(shop);
    return shop;
  }

  private ShopHttp.Answer deliver(ShopHttp http, WebhookSenders.Standard by, String id,
      Instant signedAt, String body) throws Exception {
    return http.webhook("standard", by.headers(id, signedAt, body), body);
  }

  @Test
  void each_event_is_handled_once_however_often_it_is_delivered_and_stats_count_it_beside_the_payments()
      throws Exception {
    WebhookSenders.Standard rotated = WebhookSenders.Standard.random();
    Shop shop = start("standard=" + sender.secret(), "standard=" + rotated.secret());
    ShopHttp http = new ShopHttp(shop.baseUrl());
    String paid = WebhookSenders.event("order.paid", "o-1");
    String shipped = WebhookSenders.event("order.shipped", "o-1");
    String refunded = WebhookSenders.event("order.refunded", "o-2");

    assertThat(http.pay("\"k-1-0123456789abcdef\"", ShopHttp.payment(1)).status()).isEqualTo(201);
    ShopHttp.Answer first = deliver(http, sender, "msg_1", Instant.now(), paid);
    ShopHttp.Answer second = deliver(http, sender, "msg_2", Instant.now(), shipped);
    ShopHttp.Answer third = deliver(http, rotated, "msg_3", Instant.now(), refunded);
    // The sender retries: the same id and bytes, signed again at a later time.
    ShopHttp.Answer again = deliver(http, sender, "msg_1", Instant.now().plusSeconds(30), paid);
    ShopHttp.Answer third2 = deliver(http, rotated, "msg_3", Instant.now(), refunded);
    awaitHandled(3);
    ShopHttp.Answer late = deliver(http, sender, "msg_2", Instant.now(), shipped);

    assertThat(List.of(first, second, third)).allSatisfy(a -> {
      assertThat(a.status()).isEqualTo(200);
      assertThat(a.text()).isEqualTo("accepted");
    });
    assertThat(List.of(again, third2, late)).allSatisfy(a -> {
      assertThat(a.status()).isEqualTo(200);
      assertThat(a.text()).isEqualTo("duplicate");
    });
    WebhookStats webhooks = http.stats().webhooks();
    assertThat(webhooks.handled()).isEqualTo(3);
    assertThat(webhooks.runs()).isEqualTo(3);
    assertThat(webhooks.repeatsFound()).isZero();
    assertThat(webhooks.perEventId()).containsExactly(Map.entry("standard/msg_1", 1L),
        Map.entry("standard/msg_2", 1L), Map.entry("standard/msg_3", 1L));
    assertThat(webhooks.perSource()).containsExactly(Map.entry("standard", 3L));
    assertThat(webhooks.event("accepted")).isEqualTo(3);
    assertThat(webhooks.event("duplicate")).isEqualTo(3);
    assertThat(webhooks.event("handled")).isEqualTo(3);
    assertThat(webhooks.queued() + webhooks.processing() + webhooks.dead()).isZero();
    ShopStats stats = http.stats();
    assertThat(stats.effects()).isEqualTo(1);
    assertThat(stats.event("reserved")).isEqualTo(1);
  }

  @Test
  void forged_stale_and_unsigned_deliveries_are_refused_with_a_reason_store_nothing_and_are_counted()
      throws Exception {
    Shop shop = start("standard=" + sender.secret());
    ShopHttp http = new ShopHttp(shop.baseUrl());
    String body = WebhookSenders.event("order.paid", "o-1");

    ShopHttp.Answer forged = deliver(http, WebhookSenders.Standard.random(), "msg_f",
        Instant.now(), body);
    ShopHttp.Answer stale = deliver(http, sender, "msg_s", Instant.now().minusSeconds(600),
        body);
    Map<String, String> altered = sender.headers("msg_a", Instant.now(), body);
    ShopHttp.Answer changed = http.webhook("standard", altered, body.replace("o-1", "o-9"));
    ShopHttp.Answer unsigned = http.webhook("standard", Map.of("webhook-id", "msg_u",
        "webhook-timestamp", Long.toString(Instant.now().getEpochSecond())), body);
    ShopHttp.Answer unknown = http.webhook("stripe", Map.of(), body);

    assertThat(forged.status()).isEqualTo(401);
    assertThat(forged.text()).contains("no signature matches");
    assertThat(stale.status()).isEqualTo(401);
    assertThat(stale.text()).contains("s old");
    assertThat(changed.status()).isEqualTo(401);
    assertThat(unsigned.status()).isEqualTo(400);
    assertThat(unsigned.text()).contains("webhook-signature header is missing");
    assertThat(unknown.status()).isEqualTo(404);
    WebhookStats webhooks = http.stats().webhooks();
    assertThat(webhooks.refused("badSignature")).isEqualTo(2);
    assertThat(webhooks.refused("staleTimestamp")).isEqualTo(1);
    assertThat(webhooks.refused("missingSignature")).isEqualTo(1);
    assertThat(webhooks.event("accepted")).isZero();
    assertThat(webhooks.handled()).isZero();
    assertThat(webhooks.queued() + webhooks.processing() + webhooks.dead()).isZero();
  }

  @Test
  void an_event_handled_before_a_restart_is_a_duplicate_after_it_and_reset_forgets_it()
      throws Exception {
    String secret = "standard=" + sender.secret();
    String body = WebhookSenders.event("order.paid", "o-1");
    Shop before = start(secret);
    ShopHttp http = new ShopHttp(before.baseUrl());
    assertThat(deliver(http, sender, "msg_1", Instant.now(), body).text()).isEqualTo("accepted");
    awaitHandled(1);
    before.close();

    Shop after = start(secret);
    http = new ShopHttp(after.baseUrl());
    ShopHttp.Answer redelivered = deliver(http, sender, "msg_1", Instant.now(), body);
    WebhookStats kept = http.stats().webhooks();
    ShopHttp.Answer reset = http.post("/reset");
    WebhookStats cleared = http.stats().webhooks();
    ShopHttp.Answer afterReset = deliver(http, sender, "msg_1", Instant.now(), body);
    awaitHandled(1);

    assertThat(redelivered.text()).isEqualTo("duplicate");
    assertThat(kept.handled()).isEqualTo(1);
    assertThat(kept.perEventId()).containsExactly(Map.entry("standard/msg_1", 1L));
    assertThat(reset.status()).as(reset.text()).isEqualTo(200);
    assertThat(reset.text()).contains("\"webhookEventsDeleted\":1");
    assertThat(cleared.handled()).isZero();
    assertThat(afterReset.text()).isEqualTo("accepted");
    assertThat(http.stats().webhooks().perEventId())
        .containsExactly(Map.entry("standard/msg_1", 1L));
  }

  @Test
  void stripe_and_github_events_are_verified_by_their_own_schemes_and_handled_once_each()
      throws Exception {
    String stripeSecret = "whsec_test_5eKc0ZbN9xQ2tLr7";
    String githubSecret = "gh-hook-token-3f9a";
    Shop shop = start("standard=" + sender.secret(), "stripe=" + stripeSecret,
        "github=" + githubSecret);
    ShopHttp http = new ShopHttp(shop.baseUrl());
    String stripeEvent = "{\"id\":\"evt_1QdN3rLkdIwHu7ix\",\"object\":\"event\","
        + "\"type\":\"payment_intent.succeeded\",\"data\":{\"object\":{\"id\":\"pi_1\"}}}";
    String push = "{\"ref\":\"refs/heads/main\",\"after\":\"6113728f27ae82c7b1a1\"}";
    String delivery = "72d3162e-cc78-11e3-81ab-4c9367dc0958";

    ShopHttp.Answer stripe = http.webhook("stripe",
        WebhookSenders.stripe(stripeSecret, Instant.now(), stripeEvent), stripeEvent);
    ShopHttp.Answer github = http.webhook("github",
        WebhookSenders.github(githubSecret, delivery, "push", push), push);
    ShopHttp.Answer stripeAgain = http.webhook("stripe",
        WebhookSenders.stripe(stripeSecret, Instant.now().plusSeconds(60), stripeEvent),
        stripeEvent);
    ShopHttp.Answer githubAgain = http.webhook("github",
        WebhookSenders.github(githubSecret, delivery, "push", push), push);
    ShopHttp.Answer stripeForged = http.webhook("stripe",
        WebhookSenders.stripe("whsec_someone_else", Instant.now(), stripeEvent), stripeEvent);
    ShopHttp.Answer githubAsStandard = http.webhook("standard",
        WebhookSenders.github(githubSecret, delivery, "push", push), push);
    awaitHandled(2);

    assertThat(List.of(stripe, github)).allSatisfy(a -> assertThat(a.text()).isEqualTo("accepted"));
    assertThat(List.of(stripeAgain, githubAgain))
        .allSatisfy(a -> assertThat(a.text()).isEqualTo("duplicate"));
    assertThat(stripeForged.status()).isEqualTo(401);
    assertThat(githubAsStandard.status()).isEqualTo(400);
    WebhookStats webhooks = http.stats().webhooks();
    assertThat(webhooks.perEventId()).containsExactly(Map.entry("github/" + delivery, 1L),
        Map.entry("stripe/evt_1QdN3rLkdIwHu7ix", 1L));
    assertThat(webhooks.perSource()).containsExactly(Map.entry("github", 1L),
        Map.entry("stripe", 1L));
    assertThat(webhooks.handled()).isEqualTo(2);
    assertThat(webhooks.runs()).isEqualTo(2);
  }

  /** Waits for {@code n} more HANDLED events of the shop's inbox. */
  private void awaitHandled(int n) throws InterruptedException {
    int seen = 0;
    while (seen < n) {
      InboxEvent e = events.poll(30, TimeUnit.SECONDS);
      if (e == null) {
        throw new AssertionError("only " + seen + " of " + n + " events were handled within"
            + " 30 s");
      }
      if (e.kind() == InboxEvent.Kind.HANDLED) {
        seen++;
      }
    }
  }

}
