package dev.oncely.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IdempotentServerTest {
  private static final MediaType JSON = MediaType.get("application/json");
  private final MockWebServer web = new MockWebServer();
  private final MockWebServer other = new MockWebServer();
  private final OkHttpClient http = new OkHttpClient.Builder()
      .readTimeout(30, TimeUnit.SECONDS).retryOnConnectionFailure(false)
      .followRedirects(false).build();

  @AfterEach
  void stop() throws IOException {
    web.close();
    other.close();
  }

  private IdempotentServer start(IdempotentServer.Builder b) throws IOException {
    IdempotentServer kit = b.build();
    web.setDispatcher(kit);
    web.start();
    return kit;
  }

  private Response post(String key, String body) throws IOException {
    return post(http, key, body);
  }

  private Response post(OkHttpClient client, String key, String body) throws IOException {
    Request.Builder r = new Request.Builder().url(web.url("/payments"))
        .post(RequestBody.create(body, JSON));
    if (key != null) {
      r.header("Idempotency-Key", key);
    }
    return client.newCall(r.build()).execute();
  }

  private static String text(Response r) throws IOException {
    try (r) {
      return r.body().string();
    }
  }

  @Test
  void repeat_of_a_key_replays_the_stored_answer_byte_for_byte_with_a_marker() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder());
    Response first = post("\"k1\"", "{\"amount\":5}");
    String firstBody = text(first);
    Response again = post("\"k1\"", "{\"amount\":5}");

    assertThat(first.code()).isEqualTo(201);
    assertThat(again.code()).isEqualTo(201);
    assertThat(again.header(IdempotentServer.REPLAYED_HEADER)).isEqualTo("true");
    assertThat(text(again)).isEqualTo(firstBody);
    assertThat(kit.ledger().size()).isEqualTo(1);
    kit.ledger().assertAtMostOneEffectPerIntent();
  }

  @Test
  void key_with_another_body_gets_the_configured_mismatch_answer() throws IOException {
    start(IdempotentServer.builder().mismatch(MismatchAnswer.stripe()));
    text(post("k", "{\"amount\":5}"));
    Response mismatch = post("k", "{\"amount\":6}");

    assertThat(mismatch.code()).isEqualTo(400);
    assertThat(text(mismatch)).contains("idempotency_error");
  }

  @Test
  void key_order_counts_only_under_exact_bytes() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder()
        .fingerprint(FingerprintRule.JSON_ANY_KEY_ORDER));
    text(post("k", "{\"a\":1,\"b\":2}"));

    assertThat(code(post("k", "{ \"b\":2, \"a\":1 }"))).isEqualTo(201);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void quoted_only_server_refuses_a_plain_key() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder().keyQuoting(KeyQuoting.QUOTED));

    assertThat(code(post("plain", "{}"))).isEqualTo(400);
    assertThat(code(post(null, "{}"))).isEqualTo(400);
    assertThat(kit.ledger().size()).isZero();
  }

  @Test
  void too_long_or_unprintable_keys_are_refused_before_any_effect() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder().maxKeyLength(8));

    assertThat(code(post("123456789", "{}"))).isEqualTo(400);
    assertThat(code(post("a\tb", "{}"))).isEqualTo(400);
    assertThat(code(post("\"a\\\"b\"", "{}"))).isEqualTo(201);
    assertThat(kit.ledger().keysOf("a\"b")).containsExactly("a\"b");
  }

  private static int code(Response r) {
    try (r) {
      return r.code();
    }
  }

  @Test
  void drop_after_commit_leaves_the_effect_and_the_retry_gets_the_replay() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder()
        .faults(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build()));

    assertThatThrownBy(() -> post("k", "{}").close()).isInstanceOf(IOException.class);
    assertThat(kit.ledger().size()).isEqualTo(1);
    Response retry = post("k", "{}");
    assertThat(retry.header(IdempotentServer.REPLAYED_HEADER)).isEqualTo("true");
    text(retry);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void gateway_524_after_commit_hides_an_effect_that_exists() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder()
        .faults(FaultScript.builder().onRequest(1, Fault.gatewayAfterCommit(524)).build()));

    assertThat(code(post("k", "{}"))).isEqualTo(524);
    assertThat(kit.ledger().hasEffect("k")).isTrue();
  }

  @Test
  void handler_5xx_is_replayed_or_re_executed_as_configured() throws IOException {
    FaultScript failFirst = FaultScript.builder().onRequest(1, Fault.handlerError(500)).build();
    IdempotentServer replaying = start(IdempotentServer.builder()
        .serverErrors(ServerErrors.REPLAYED).faults(failFirst));
    assertThat(code(post("k", "{}"))).isEqualTo(500);
    assertThat(code(post("k", "{}"))).isEqualTo(500);
    assertThat(replaying.ledger().size()).isZero();

    IdempotentServer reExecuting = IdempotentServer.builder().faults(failFirst.restarted()).build();
    web.setDispatcher(reExecuting);
    assertThat(code(post("k2", "{}"))).isEqualTo(500);
    assertThat(code(post("k2", "{}"))).isEqualTo(201);
    assertThat(reExecuting.ledger().size()).isEqualTo(1);
  }

  @Test
  void late_original_makes_the_retry_see_in_progress_then_commits_once() throws Exception {
    IdempotentServer kit = start(IdempotentServer.builder().inProgressStatus(409)
        .retryAfterSeconds(2).lateFor(Duration.ofMinutes(1))
        .faults(FaultScript.builder().onRequest(1, Fault.lateOriginal()).build()));
    OkHttpClient impatient = http.newBuilder().readTimeout(300, TimeUnit.MILLISECONDS).build();

    assertThatThrownBy(() -> post(impatient, "k", "{}").close())
        .isInstanceOf(IOException.class);
    Response retry = post("k", "{}");
    assertThat(retry.code()).isEqualTo(409);
    assertThat(retry.header("Retry-After")).isEqualTo("2");
    text(retry);
    Response later = awaitReplay("k");
    assertThat(later.code()).isEqualTo(201);
    text(later);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  private Response awaitReplay(String key) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      Response r = post(key, "{}");
      if (r.code() != 409) {
        return r;
      }
      text(r);
      Thread.sleep(10);
    }
    throw new AssertionError("the late original never committed");
  }

  @Test
  void accepted_operation_is_polled_on_another_origin_with_a_status_document() throws IOException {
    other.start();
    IdempotentServer kit = IdempotentServer.builder().asynchronous(true)
        .pollStyle(PollStyle.STATUS_DOCUMENT).statusOrigin(other.url("/"))
        .locationOnReplay(false).build();
    web.setDispatcher(kit);
    other.setDispatcher(kit);
    web.start();

    Response accepted = post("k", "{}");
    String location = accepted.header("Location");
    text(accepted);
    assertThat(accepted.code()).isEqualTo(202);
    assertThat(location).startsWith(other.url("/").toString());
    Response poll1 = http.newCall(new Request.Builder().url(location).build()).execute();
    assertThat(poll1.code()).isEqualTo(200);
    assertThat(text(poll1)).contains("\"processing\"");
    Response poll2 = http.newCall(new Request.Builder().url(location).build()).execute();
    assertThat(text(poll2)).contains("\"succeeded\"");
    assertThat(kit.requests().to(ReceivedRequest.originOf(other.url("/")))).hasSize(2);
  }

  @Test
  void replayed_202_can_lose_its_location() throws IOException {
    start(IdempotentServer.builder().asynchronous(true).replayAcceptedForever(true)
        .locationOnReplay(false));
    Response first = post("k", "{}");
    text(first);
    Response replay = post("k", "{}");

    assertThat(first.header("Location")).isNotNull();
    assertThat(replay.code()).isEqualTo(202);
    assertThat(replay.header("Location")).isNull();
    text(replay);
  }

  @Test
  void expired_record_is_forgotten_and_the_second_effect_is_marked_as_the_servers() throws IOException {
    MutableClock clock = new MutableClock();
    IdempotentServer kit = start(IdempotentServer.builder().clock(clock)
        .retention(Duration.ofHours(24)));
    text(post("k", "{}"));
    clock.now = clock.now.plus(Duration.ofHours(25));
    text(post("k", "{}"));

    assertThat(kit.ledger().size()).isEqualTo(2);
    assertThat(kit.ledger().duplicates()).containsKey("k");
    assertThat(kit.ledger().duplicatesCausedByClient()).isEmpty();
  }

  @Test
  void lost_fingerprint_answers_mismatch_to_an_identical_retry() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder()
        .faults(FaultScript.builder().onRequest(2, Fault.lostFingerprint()).build()));
    text(post("k", "{}"));

    assertThat(code(post("k", "{}"))).isEqualTo(422);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void auth_fault_hits_only_retries() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder()
        .faults(FaultScript.builder().rule((r, n) -> Fault.authOnRetry(401)).build()));

    assertThat(code(post("k", "{}"))).isEqualTo(201);
    Response retry = post("k", "{}");
    assertThat(retry.code()).isEqualTo(401);
    assertThat(retry.header("WWW-Authenticate")).isNotNull();
    text(retry);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void request_log_keeps_every_header_by_origin() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder());
    Request r = new Request.Builder().url(web.url("/payments")).header("Authorization", "Bearer t")
        .header("Idempotency-Key", "k").post(RequestBody.create("{}", JSON)).build();
    text(http.newCall(r).execute());
    String origin = ReceivedRequest.originOf(web.url("/"));

    assertThat(kit.requests().carrying("Authorization")).hasSize(1);
    assertThat(kit.requests().carryingOutside(origin, "Authorization")).isEmpty();
    assertThat(kit.requests().all().get(0).header("Authorization")).isEqualTo("Bearer t");
    assertThat(kit.requests().all().get(0).toString()).doesNotContain("Bearer t");
  }

  @Test
  void seeded_probabilities_repeat_the_same_faults() throws IOException {
    FaultScript script = FaultScript.builder().withProbability(Fault.answer(503), 0.5).seed(7)
        .build();
    IdempotentServer first = start(IdempotentServer.builder().faults(script));
    for (int i = 0; i < 20; i++) {
      text(post("k" + i, "{}"));
    }
    IdempotentServer second = IdempotentServer.builder().faults(script.restarted()).build();
    web.setDispatcher(second);
    for (int i = 0; i < 20; i++) {
      text(post("k" + i, "{}"));
    }

    assertThat(first.injectedFaults()).isNotEmpty().isEqualTo(second.injectedFaults());
  }

  @Test
  void slow_processing_answers_202_then_in_progress_then_the_stored_result() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder()
        .faults(FaultScript.builder().onRequest(1, Fault.processingSlowly(2)).build()));

    assertThat(code(post("k", "{}"))).isEqualTo(202);
    assertThat(code(post("k", "{}"))).isEqualTo(409);
    assertThat(code(post("k", "{}"))).isEqualTo(409);
    Response replay = post("k", "{}");
    assertThat(replay.code()).isEqualTo(201);
    assertThat(text(replay)).isEqualTo(kit.storedBody("", "k").orElseThrow());
    assertThat(kit.answersOf("k", ServedAnswer.Kind.IN_PROGRESS)).isEqualTo(2);
    assertThat(kit.answersOf("k", ServedAnswer.Kind.REPLAY)).isEqualTo(1);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void effect_listener_holds_the_moment_after_commit_while_repeats_see_in_progress()
      throws Exception {
    java.util.concurrent.CountDownLatch committed = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    IdempotentServer kit = start(IdempotentServer.builder().onEffect(e -> {
      committed.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      }
    }));
    Thread first = new Thread(() -> {
      try {
        text(post("k", "{}"));
      } catch (IOException ignored) {
        // the answer of the held request does not matter here
      }
    });
    first.start();
    assertThat(committed.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(code(post("k", "{}"))).isEqualTo(409);
    release.countDown();
    first.join(10_000);
    assertThat(code(post("k", "{}"))).isEqualTo(201);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void wiped_server_re_executes_and_the_ledger_blames_the_server() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder()
        .intentOf(IdempotentServer.jsonField("order")));
    text(post("k", "{\"order\":\"o-1\"}"));
    kit.forgetAllKeys();
    text(post("k", "{\"order\":\"o-1\"}"));
    text(post("k2", "{\"order\":\"o-2\"}"));

    assertThat(kit.ledger().countOf("o-1")).isEqualTo(2);
    assertThat(kit.ledger().effectsOf("o-1").get(1).afterServerForgot()).isTrue();
    assertThat(kit.ledger().duplicatesCausedByClient()).isEmpty();
    assertThatThrownBy(() -> kit.ledger().assertAtMostOneEffectPerIntent())
        .hasMessageContaining("o-1");
  }

  @Test
  void second_key_for_one_intent_is_the_clients_duplicate() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder()
        .intentOf(IdempotentServer.jsonField("order")));
    text(post("k1", "{\"order\":\"o-1\"}"));
    text(post("k2", "{\"order\":\"o-1\"}"));

    assertThat(kit.ledger().keysOf("o-1")).containsExactly("k1", "k2");
    assertThat(kit.ledger().duplicatesCausedByClient()).containsKey("o-1");
  }

  @Test
  void accepted_operations_complete_on_demand_and_faults_change_mid_test() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder().asynchronous(true)
        .completeAfterPolls(100));
    Response accepted = post("k", "{}");
    String location = accepted.header("Location");
    text(accepted);
    assertThat(kit.completeAccepted()).isEqualTo(1);
    kit.changeFaults(FaultScript.builder().withProbability(Fault.answer(503), 1.0).build());

    Response poll = http.newCall(new Request.Builder().url(web.url(location)).build()).execute();
    assertThat(poll.code()).isEqualTo(503);
    text(poll);
    kit.changeFaults(FaultScript.none());
    Response healed = http.newCall(new Request.Builder().url(web.url(location)).build()).execute();
    assertThat(text(healed)).contains("\"succeeded\"");
  }

  @Test
  void builders_name_the_setting_they_refuse() {
    assertThatThrownBy(() -> Fault.redirect(304, "/x")).hasMessageContaining("redirect status");
    assertThatThrownBy(() -> FaultScript.builder().onRequest(1, Fault.refuse())
        .onRequest(1, Fault.refuse())).hasMessageContaining("onRequest(1) already has");
    assertThatThrownBy(() -> IdempotentServer.builder().replayAcceptedForever(true).build())
        .hasMessageContaining("asynchronous");
    assertThatThrownBy(() -> IdempotentServer.builder().inProgressStatus(200))
        .hasMessageContaining("inProgressStatus");
  }

  private static final class MutableClock extends Clock {
    volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
