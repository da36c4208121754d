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
  void a_server_is_quiet_once_every_request_is_answered_and_nothing_came_for_a_while()
      throws Exception {
    IdempotentServer kit = start(IdempotentServer.builder());
    text(post("\"k1\"", "{\"amount\":5}"));

    assertThat(kit.awaitQuiet(Duration.ofMillis(50), Duration.ofSeconds(5))).isTrue();
    assertThat(kit.answers()).hasSize(kit.requestCount()).hasSize(1);
    assertThat(kit.awaitQuiet(Duration.ofSeconds(10), Duration.ofMillis(20))).isFalse();
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
    Response later = awaitReplay(kit, "k");
    assertThat(later.code()).isEqualTo(201);
    text(later);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  /** Posts {@code key} again once the late original has been answered (so its answer is stored). */
  private Response awaitReplay(IdempotentServer kit, String key) throws Exception {
    assertThat(kit.awaitQuiet(Duration.ZERO, Duration.ofSeconds(30)))
        .as("the late original was answered").isTrue();
    return post(key, "{}");
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
  void a_repeat_while_the_accepted_operation_runs_can_get_the_in_progress_answer()
      throws IOException {
    MutableClock clock = new MutableClock();
    IdempotentServer kit = start(IdempotentServer.builder().asynchronous(true)
        .inProgressWhileAccepted(true).completeAfter(Duration.ofSeconds(1)).clock(clock));
    Response first = post("k", "{}");
    text(first);
    Response whileRunning = post("k", "{}");
    text(whileRunning);
    clock.now = clock.now.plusSeconds(1);
    Response afterwards = post("k", "{}");

    assertThat(first.code()).isEqualTo(202);
    assertThat(first.header("Location")).isNotNull();
    assertThat(whileRunning.code()).isEqualTo(409);
    assertThat(whileRunning.header("Retry-After")).isEqualTo("1");
    assertThat(afterwards.code()).isEqualTo(200);
    assertThat(afterwards.header(IdempotentServer.REPLAYED_HEADER)).isEqualTo("true");
    assertThat(text(afterwards)).contains("\"succeeded\"");
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void in_progress_while_accepted_needs_an_asynchronous_server() {
    assertThatThrownBy(() -> IdempotentServer.builder().inProgressWhileAccepted(true).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("inProgressWhileAccepted needs asynchronous(true)");
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
  void an_injected_503_carries_the_servers_retry_after() throws IOException {
    start(IdempotentServer.builder().retryAfterSeconds(7).faults(FaultScript.builder()
        .onRequest(1, Fault.answer(503)).onRequest(2, Fault.answer(429)).build()));

    Response unavailable = post("k1", "{}");
    Response limited = post("k2", "{}");

    assertThat(unavailable.code()).isEqualTo(503);
    assertThat(unavailable.header("Retry-After")).isEqualTo("7");
    assertThat(limited.code()).isEqualTo(429);
    assertThat(limited.header("Retry-After")).isEqualTo("7");
    text(unavailable);
    text(limited);
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

  private Response get(String path) throws IOException {
    return http.newCall(new Request.Builder().url(web.url(path)).build()).execute();
  }

  @Test
  void status_path_and_id_prefix_make_the_created_resource_its_own_status_url()
      throws IOException {
    start(IdempotentServer.builder().statusPath("/payments/").idPrefix("pay_")
        .locationOnCreated(true));
    Response created = post("k", "{\"amount\":5}");
    String body = text(created);

    assertThat(created.code()).isEqualTo(201);
    assertThat(created.header("Location")).isEqualTo("/payments/pay_000001");
    assertThat(body).contains("\"id\":\"pay_000001\"");
    Response resource = get("/payments/pay_000001");
    assertThat(resource.code()).isEqualTo(200);
    assertThat(text(resource)).isEqualTo(body);
    assertThat(get("/status/op_000001").code()).isEqualTo(200);
    assertThat(text(get("/status/op_000001"))).isEqualTo("{\"data\":[]}");
    Response replay = post("k", "{\"amount\":5}");
    assertThat(replay.header("Location")).isEqualTo("/payments/pay_000001");
    assertThat(text(replay)).isEqualTo(body);
  }

  @Test
  void result_body_hook_is_the_body_of_the_201_the_status_url_and_every_replay()
      throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder().locationOnCreated(true)
        .resultBody(c -> "{\"id\":\"" + c.id() + "\",\"seq\":" + c.effect().sequence()
            + ",\"echo\":" + c.request().bodyText() + "}"));
    Response created = post("k", "{\"amount\":7}");
    String body = text(created);

    assertThat(body).isEqualTo("{\"id\":\"op_000001\",\"seq\":1,\"echo\":{\"amount\":7}}");
    assertThat(text(get(created.header("Location")))).isEqualTo(body);
    assertThat(text(post("k", "{\"amount\":7}"))).isEqualTo(body);
    assertThat(kit.storedBody("", "k")).contains(body);
  }

  @Test
  void asynchronous_when_accepts_only_the_requests_it_chooses() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder()
        .asynchronousWhen(r -> r.bodyText().contains("\"slow\":true")));
    Response quick = post("k1", "{\"slow\":false}");
    Response slow = post("k2", "{\"slow\":true}");

    assertThat(quick.code()).isEqualTo(201);
    assertThat(slow.code()).isEqualTo(202);
    assertThat(slow.header("Location")).startsWith(IdempotentServer.STATUS_PATH);
    text(quick);
    text(slow);
    assertThat(kit.ledger().size()).isEqualTo(2);
    assertThat(kit.acceptedPending()).isEqualTo(1);
  }

  @Test
  void complete_after_a_duration_completes_by_the_clock_not_by_polls() throws IOException {
    MutableClock clock = new MutableClock();
    IdempotentServer kit = start(IdempotentServer.builder().asynchronous(true).clock(clock)
        .completeAfter(Duration.ofSeconds(5)));
    Response accepted = post("k", "{\"amount\":5}");
    String status = accepted.header("Location");
    text(accepted);
    for (int i = 0; i < 3; i++) {
      Response processing = get(status);
      assertThat(processing.code()).isEqualTo(202);
      text(processing);
    }
    Response repeat = post("k", "{\"amount\":5}");
    assertThat(repeat.code()).isEqualTo(202);
    text(repeat);
    assertThat(kit.acceptedPending()).isEqualTo(1);

    clock.now = clock.now.plusSeconds(5);
    assertThat(kit.acceptedPending()).isZero();
    Response done = get(status);
    assertThat(done.code()).isEqualTo(200);
    assertThat(text(done)).contains("succeeded");
    Response after = post("k", "{\"amount\":5}");
    assertThat(after.code()).isEqualTo(200);
    assertThat(after.header(IdempotentServer.REPLAYED_HEADER)).isEqualTo("true");
    text(after);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void complete_accepted_finishes_timed_operations_before_their_time() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder().asynchronous(true)
        .completeAfter(Duration.ofMinutes(10)));
    Response accepted = post("k", "{\"amount\":5}");
    text(accepted);

    assertThat(kit.completeAccepted()).isEqualTo(1);
    assertThat(get(accepted.header("Location")).code()).isEqualTo(200);
    assertThat(kit.acceptedPending()).isZero();
  }

  @Test
  void body_over_the_limit_gets_413_and_reserves_no_key() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder().maxBodyBytes(16));
    Response tooLarge = post("k", "{\"amount\":5,\"note\":\"long enough\"}");
    Response fits = post("k", "{\"amount\":5}");

    assertThat(tooLarge.code()).isEqualTo(413);
    assertThat(text(tooLarge)).contains("the limit is 16");
    assertThat(fits.code()).isEqualTo(201);
    assertThat(fits.header(IdempotentServer.REPLAYED_HEADER)).isNull();
    text(fits);
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  @Test
  void a_refused_credential_gets_401_and_reserves_no_key() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder()
        .requireCredential("Authorization", "Bearer fresh"::equals));
    Response expired = post(withToken("Bearer expired"), "k", "{\"amount\":5}");
    Response missing = post("k", "{\"amount\":5}");
    Response fresh = post(withToken("Bearer fresh"), "k", "{\"amount\":5}");

    assertThat(expired.code()).isEqualTo(401);
    assertThat(expired.header("WWW-Authenticate")).isEqualTo("Bearer error=\"invalid_token\"");
    text(expired);
    assertThat(missing.code()).isEqualTo(401);
    text(missing);
    assertThat(fresh.code()).isEqualTo(201);
    assertThat(fresh.header(IdempotentServer.REPLAYED_HEADER)).isNull();
    text(fresh);
    assertThat(kit.ledger().size()).isEqualTo(1);
    assertThat(kit.answers()).extracting(ServedAnswer::kind).containsExactly(
        ServedAnswer.Kind.UNAUTHORIZED, ServedAnswer.Kind.UNAUTHORIZED, ServedAnswer.Kind.EFFECT);
  }

  @Test
  void status_urls_answer_without_the_required_credential() throws IOException {
    start(IdempotentServer.builder().asynchronous(true)
        .requireCredential("Authorization", "Bearer fresh"::equals));
    Response accepted = post(withToken("Bearer fresh"), "k", "{\"amount\":5}");
    text(accepted);

    assertThat(accepted.code()).isEqualTo(202);
    assertThat(get(accepted.header("Location")).code()).isIn(200, 202);
  }

  private OkHttpClient withToken(String token) {
    return http.newBuilder().addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
        .header("Authorization", token).build())).build();
  }

  @Test
  void in_progress_answer_carries_the_configured_body() throws IOException {
    String problem = "{\"type\":\"about:blank\",\"title\":\"in progress\",\"status\":409}";
    start(IdempotentServer.builder().inProgressBody("application/problem+json", problem)
        .faults(FaultScript.builder().onRequest(1, Fault.processingSlowly(1)).build()));
    text(post("k", "{\"amount\":5}"));
    Response busy = post("k", "{\"amount\":5}");

    assertThat(busy.code()).isEqualTo(409);
    assertThat(busy.header("Content-Type")).isEqualTo("application/problem+json");
    assertThat(text(busy)).isEqualTo(problem);
  }

  @Test
  void stall_for_closes_the_connection_without_an_answer_after_commit() throws IOException {
    IdempotentServer kit = start(IdempotentServer.builder().faults(FaultScript.builder()
        .onRequest(1, Fault.stallAfterCommit()).stallFor(Duration.ZERO).build()));

    assertThatThrownBy(() -> post("k", "{\"amount\":5}")).isInstanceOf(IOException.class);
    assertThat(kit.ledger().size()).isEqualTo(1);
    Response retry = post("k", "{\"amount\":5}");
    assertThat(retry.header(IdempotentServer.REPLAYED_HEADER)).isEqualTo("true");
    text(retry);
  }

  @Test
  void a_burst_fault_hits_the_following_requests_although_their_draws_miss() throws IOException {
    long seed = seedDrawing(0.5, true, false, false, false);
    start(IdempotentServer.builder().faults(FaultScript.builder()
        .withProbability(Fault.answer(503), 0.5, 3).seed(seed).build()));
    int[] codes = new int[4];
    for (int i = 0; i < 4; i++) {
      Response r = post("k" + i, "{\"amount\":5}");
      codes[i] = r.code();
      text(r);
    }

    assertThat(codes).containsExactly(503, 503, 503, 201);
  }

  /** A seed whose first draws fall below {@code p} exactly where {@code hits} says. */
  private static long seedDrawing(double p, boolean... hits) {
    for (long seed = 0; ; seed++) {
      java.util.Random r = new java.util.Random(seed);
      boolean fits = true;
      for (boolean hit : hits) {
        fits &= (r.nextDouble() < p) == hit;
      }
      if (fits) {
        return seed;
      }
    }
  }

  @Test
  void new_hooks_refuse_bad_values_naming_the_setting() {
    assertThatThrownBy(() -> IdempotentServer.builder().statusPath("payments"))
        .hasMessageContaining("statusPath");
    assertThatThrownBy(() -> IdempotentServer.builder().idPrefix("pay/"))
        .hasMessageContaining("idPrefix");
    assertThatThrownBy(() -> IdempotentServer.builder().maxBodyBytes(-1))
        .hasMessageContaining("maxBodyBytes");
    assertThatThrownBy(() -> IdempotentServer.builder().completeAfter(Duration.ofSeconds(-1)))
        .hasMessageContaining("completeAfter");
    assertThatThrownBy(() -> IdempotentServer.builder().inProgressBody(" ", "{}"))
        .hasMessageContaining("contentType");
    assertThatThrownBy(() -> FaultScript.builder().withProbability(Fault.refuse(), 0.1, 0))
        .hasMessageContaining("burst length");
    assertThatThrownBy(() -> FaultScript.builder().stallFor(Duration.ofSeconds(-1)))
        .hasMessageContaining("stallFor");
    assertThat(IdempotentServer.builder().asynchronousWhen(r -> true)
        .replayAcceptedForever(true).build()).isNotNull();
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
