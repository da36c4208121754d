package dev.oncely.server;

import static dev.oncely.server.EndpointTestKit.JSON;
import static dev.oncely.server.EndpointTestKit.OPERATION;
import static dev.oncely.server.EndpointTestKit.created;
import static dev.oncely.server.EndpointTestKit.post;
import static dev.oncely.server.EndpointTestKit.quoted;
import static dev.oncely.server.EndpointTestKit.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreException;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.server.EndpointTestKit.Gate;
import dev.oncely.server.EndpointTestKit.HandlerFailure;
import dev.oncely.server.EndpointTestKit.ScriptedHandler;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The core's contract, without a servlet container: {@link IdempotentEndpoints} on the in-memory
 * store with a clock the tests move. Leases run out by moving the clock, never by waiting; a
 * handler that must still be running when a repeat arrives is held on a {@link Gate}; an owner
 * that "died" is a second instance whose handler never returns while the test runs and whose lease
 * renewals were stopped. Only the lease-renewal case runs on the system clock (renewal is a real
 * timer).
 */
class IdempotentEndpointsTest {
  private static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
  private static final String ORDER = "{\"amount\":1000,\"currency\":\"JPY\"}";
  private static final EndpointPolicy POLICY = EndpointPolicy.builder(OPERATION).build();
  private static final EndpointPolicy RERUN_SAFE = POLICY.toBuilder().rerunSafe(true).build();

  private final ManualClock clock = new ManualClock(T0);
  private final List<ReceiptEvent> events = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final List<Gate> gates = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private ReceiptStore receipts;
  private IdempotentEndpoints endpoints;

  @BeforeEach
  void start() {
    receipts = ReceiptStore.on(new InMemoryIntentStore());
    endpoints = endpoints(b -> {});
  }

  @AfterEach
  void stop() throws Exception {
    gates.forEach(Gate::open);
    threads.shutdown();
    threads.awaitTermination(10, TimeUnit.SECONDS);
    for (AutoCloseable c : closing) {
      c.close();
    }
    receipts.close();
  }

  private IdempotentEndpoints endpoints(Consumer<IdempotentEndpoints.Builder> c) {
    IdempotentEndpoints.Builder b = IdempotentEndpoints.builder(receipts).clock(clock)
        .instance("instance-live").listener(events::add);
    c.accept(b);
    IdempotentEndpoints built = b.build();
    closing.add(built);
    return built;
  }

  private Gate gate() {
    Gate g = new Gate();
    gates.add(g);
    return g;
  }

  private static IntentId idOf(String principal, String key) {
    return IntentId.of(principal, OPERATION, key);
  }

  private Receipt receipt(String key) {
    return receipts.get(idOf("alice", key)).orElseThrow();
  }

  private ServerAnswer send(IdempotentEndpoints on, EndpointPolicy policy, String key,
      String json, EndpointHandler handler) throws Exception {
    return on.handle(post("alice", quoted(key), json), policy, handler);
  }

  private ServerAnswer send(String key, String json, EndpointHandler handler) throws Exception {
    return send(endpoints, POLICY, key, json, handler);
  }

  private Future<ServerAnswer> sendAsync(IdempotentEndpoints on, EndpointPolicy policy,
      String key, String json, EndpointHandler handler) {
    return threads.submit(() -> send(on, policy, key, json, handler));
  }

  private List<ReceiptEvent.Kind> kinds() {
    return events.stream().map(ReceiptEvent::kind).toList();
  }

  private static void assertReplayOf(ServerAnswer replay, ServerAnswer original) {
    assertThat(replay.status()).isEqualTo(original.status());
    assertThat(replay.body()).isEqualTo(original.body());
    assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
  }

  // --- Keys and bodies refused before anything is stored ---------------------------------------

  @Nested
  class Refusals {
    @Test
    void a_missing_key_where_required_is_400_with_a_problem_body_and_nothing_runs()
        throws Exception {
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer a = endpoints.handle(post("alice", null, ORDER), POLICY, handler);

      assertThat(a.status()).isEqualTo(400);
      assertThat(a.header("Content-Type")).isEqualTo("application/problem+json");
      assertThat(text(a))
          .contains("\"type\":\"https://oncely.dev/problems/idempotency-key-missing\"")
          .contains("\"status\":400");
      assertThat(handler.runs()).isZero();
      assertThat(receipts.intentStore().listUnfinished()).isEmpty();
    }

    @Test
    void a_missing_key_in_stripes_dialect_is_400_invalid_request_error() throws Exception {
      IdempotentEndpoints stripe = endpoints(b -> b.dialect(ServerDialect.STRIPE));
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer a = stripe.handle(post("alice", null, ORDER), POLICY, handler);

      assertThat(a.status()).isEqualTo(400);
      assertThat(a.header("Content-Type")).isEqualTo(JSON);
      assertThat(text(a)).startsWith("{\"error\":{\"type\":\"invalid_request_error\"");
      assertThat(handler.runs()).isZero();
    }

    @Test
    void a_missing_key_where_optional_runs_the_handler_unprotected() throws Exception {
      EndpointPolicy optional = POLICY.toBuilder().keyRequired(false).build();
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer a = endpoints.handle(post("alice", null, ORDER), optional, handler);
      ServerAnswer again = endpoints.handle(post("alice", null, ORDER), optional, handler);

      assertThat(a.status()).isEqualTo(201);
      assertThat(again.header("Idempotent-Replayed")).isNull();
      assertThat(handler.runs()).isEqualTo(2);
      HandlerContext context = handler.contexts.get(0);
      assertThat(context.isProtected()).isFalse();
      assertThatThrownBy(context::receipt).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> context.outboundKey("charge"))
          .isInstanceOf(IllegalStateException.class);
      assertThat(events).isEmpty();
    }

    @ParameterizedTest(name = "IETF key header [{0}]")
    @ValueSource(strings = {
        "k1",                 // unquoted: not a Structured Field string
        "\"k1",               // no closing quote
        "\"a\\b\"",           // an escape other than \" and \\
        "\"k\\\"",            // an escape cut by the closing quote
        "\"\"",               // empty
        "\"k\u00e4\"",        // non-ASCII
        "\"two words\"",      // a space is not a visible character
    })
    void a_malformed_ietf_key_is_400_and_nothing_is_stored(String header) throws Exception {
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer a = endpoints.handle(post("alice", header, ORDER), POLICY, handler);

      assertThat(a.status()).isEqualTo(400);
      assertThat(text(a)).contains("idempotency-key-malformed");
      assertThat(handler.runs()).isZero();
      assertThat(events).isEmpty();
    }

    @Test
    void a_key_of_256_characters_is_400_and_one_of_255_is_served() throws Exception {
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer tooLong = send("k".repeat(256), ORDER, handler);
      ServerAnswer longest = send("k".repeat(255), ORDER, handler);

      assertThat(tooLong.status()).isEqualTo(400);
      assertThat(text(tooLong)).contains("idempotency-key-malformed").doesNotContain("kkkk");
      assertThat(longest.status()).isEqualTo(201);
      assertThat(handler.runs()).isEqualTo(1);
    }

    @Test
    void two_key_headers_are_400_whatever_their_case() throws Exception {
      ScriptedHandler handler = ScriptedHandler.creating();
      InboundRequest twice = InboundRequest.builder("POST", "/payments").principal("alice")
          .header("Content-Type", JSON).header("Idempotency-Key", quoted("k1"))
          .header("idempotency-key", quoted("k2")).body(ORDER.getBytes(StandardCharsets.UTF_8))
          .build();

      ServerAnswer a = endpoints.handle(twice, POLICY, handler);

      assertThat(a.status()).isEqualTo(400);
      assertThat(handler.runs()).isZero();
      assertThat(receipts.get(idOf("alice", "k1"))).isEmpty();
      assertThat(receipts.get(idOf("alice", "k2"))).isEmpty();
    }

    @ParameterizedTest(name = "Stripe key header [{0}]")
    @ValueSource(strings = {"k\u00e4", "two words", ""})
    void a_malformed_stripe_key_is_400_invalid_request_error(String header) throws Exception {
      IdempotentEndpoints stripe = endpoints(b -> b.dialect(ServerDialect.STRIPE));
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer a = stripe.handle(post("alice", header, ORDER), POLICY, handler);

      assertThat(a.status()).isEqualTo(400);
      assertThat(text(a)).contains("invalid_request_error");
      assertThat(handler.runs()).isZero();
    }

    @Test
    void a_body_over_the_limit_is_413_before_the_handler_and_nothing_is_stored() throws Exception {
      EndpointPolicy small = POLICY.toBuilder().maxBodyBytes(32).build();
      ScriptedHandler handler = ScriptedHandler.creating();
      String big = "{\"note\":\"" + "x".repeat(24) + "\"}";

      ServerAnswer a = send(endpoints, small, "k1", big, handler);

      assertThat(big.length()).isEqualTo(35);
      assertThat(a.status()).isEqualTo(413);
      assertThat(text(a)).contains("body-too-large").contains("32 bytes");
      assertThat(handler.runs()).isZero();
      assertThat(receipts.get(idOf("alice", "k1"))).isEmpty();
    }

    @Test
    void a_gzip_body_that_decodes_past_the_limit_is_413_and_nothing_is_stored()
        throws Exception {
      EndpointPolicy small = POLICY.toBuilder().maxBodyBytes(256).build();
      ScriptedHandler handler = ScriptedHandler.creating();
      byte[] bomb = gzip(("{\"note\":\"" + "x".repeat(10_000) + "\"}")
          .getBytes(StandardCharsets.UTF_8));
      InboundRequest coded = InboundRequest.builder("POST", "/payments").principal("alice")
          .header("Content-Type", JSON).header("Content-Encoding", "gzip")
          .header("Idempotency-Key", quoted("k1")).body(bomb).build();

      ServerAnswer a = endpoints.handle(coded, small, handler);

      assertThat(bomb.length).isLessThan(256);
      assertThat(a.status()).isEqualTo(413);
      assertThat(handler.runs()).isZero();
      assertThat(receipts.get(idOf("alice", "k1"))).isEmpty();
    }

    @Test
    void malformed_json_is_400_and_nothing_is_stored() throws Exception {
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer a = send("k1", "{\"amount\":", handler);

      assertThat(a.status()).isEqualTo(400);
      assertThat(text(a)).contains("payload-malformed");
      assertThat(handler.runs()).isZero();
      assertThat(receipts.get(idOf("alice", "k1"))).isEmpty();
    }

    @Test
    void an_unknown_scope_is_400_and_nothing_is_stored() throws Exception {
      IdempotentEndpoints byTenant = endpoints(b -> b.scopeResolver(ScopeResolver.header(
          "X-Tenant")));
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer a = byTenant.handle(post("alice", quoted("k1"), ORDER), POLICY, handler);

      assertThat(a.status()).isEqualTo(400);
      assertThat(text(a)).contains("scope-unavailable");
      assertThat(handler.runs()).isZero();
      assertThat(receipts.intentStore().listUnfinished()).isEmpty();
    }
  }

  // --- The first request and its replays --------------------------------------------------------

  @Nested
  class Replays {
    private final byte[] exactBody =
        "{ \"id\" : \"p-1\",\n  \"amount\":1000 }\n".getBytes(StandardCharsets.UTF_8);

    private ServerAnswer richAnswer() {
      Map<String, List<String>> headers = new LinkedHashMap<>();
      headers.put("Content-Type", List.of("application/json; charset=utf-8"));
      headers.put("Location", List.of("/payments/p-1"));
      headers.put("ETag", List.of("\"v1\""));
      headers.put("Set-Cookie", List.of("session=secret-session; HttpOnly"));
      headers.put("X-Request-Id", List.of("req-1"));
      return ServerAnswer.of(201, headers, exactBody);
    }

    @Test
    void the_first_request_runs_once_and_its_status_allowed_headers_and_exact_body_are_stored()
        throws Exception {
      ScriptedHandler handler = new ScriptedHandler((c, run) -> richAnswer());

      ServerAnswer first = send("k1", ORDER, handler);

      assertThat(first.status()).isEqualTo(201);
      assertThat(first.body()).isEqualTo(exactBody);
      assertThat(first.header("Set-Cookie")).as("the first caller gets its own cookie")
          .isNotNull();
      assertThat(first.header("Idempotent-Replayed")).isNull();
      assertThat(handler.runs()).isEqualTo(1);
      Receipt r = receipt("k1");
      assertThat(r.state()).isEqualTo(ReceiptState.COMPLETED);
      assertThat(r.runs()).isEqualTo(1);
      assertThat(r.answer().status()).isEqualTo(201);
      assertThat(r.answer().body()).isEqualTo(exactBody);
      assertThat(r.answer().headers()).containsOnlyKeys("Content-Type", "Location", "ETag");
      assertThat(r.expiresAt()).isEqualTo(T0.plus(POLICY.retention()));
      assertThat(kinds()).containsExactly(ReceiptEvent.Kind.RESERVED,
          ReceiptEvent.Kind.COMPLETED);
    }

    @Test
    void a_repeat_gets_the_same_answer_marked_replayed_and_never_a_cookie() throws Exception {
      ScriptedHandler handler = new ScriptedHandler((c, run) -> richAnswer());
      ServerAnswer first = send("k1", ORDER, handler);

      ServerAnswer replay = send("k1", ORDER, handler);
      ServerAnswer again = send("k1", ORDER, handler);

      assertThat(handler.runs()).isEqualTo(1);
      for (ServerAnswer r : List.of(replay, again)) {
        assertReplayOf(r, first);
        assertThat(r.header("Content-Type")).isEqualTo("application/json; charset=utf-8");
        assertThat(r.header("Location")).isEqualTo("/payments/p-1");
        assertThat(r.header("ETag")).isEqualTo("\"v1\"");
        assertThat(r.header("Set-Cookie")).isNull();
        assertThat(r.header("X-Request-Id")).isNull();
        assertThat(r.headers()).hasSize(4);
      }
      assertThat(kinds()).containsExactly(ReceiptEvent.Kind.RESERVED,
          ReceiptEvent.Kind.COMPLETED, ReceiptEvent.Kind.REPLAYED, ReceiptEvent.Kind.REPLAYED);
      assertThat(events).allSatisfy(e -> assertThat(e.safeKey()).doesNotContain("k1"));
    }

    @Test
    void a_business_refusal_is_stored_and_replayed_like_a_success() throws Exception {
      ScriptedHandler handler = new ScriptedHandler((c, run) ->
          ServerAnswer.json(402, "{\"error\":\"card_declined\",\"run\":" + run + "}"));

      ServerAnswer first = send("k1", ORDER, handler);
      ServerAnswer replay = send("k1", ORDER, handler);

      assertThat(first.status()).isEqualTo(402);
      assertReplayOf(replay, first);
      assertThat(handler.runs()).isEqualTo(1);
    }

    @Test
    void another_payload_is_422_problem_and_the_original_is_untouched() throws Exception {
      ScriptedHandler handler = ScriptedHandler.creating();
      ServerAnswer first = send("k1", ORDER, handler);
      Receipt before = receipt("k1");

      ServerAnswer other = send("k1", "{\"amount\":9999,\"currency\":\"JPY\"}", handler);

      assertThat(other.status()).isEqualTo(422);
      assertThat(other.header("Content-Type")).isEqualTo("application/problem+json");
      assertThat(text(other)).contains("idempotency-key-reused").doesNotContain("9999");
      assertThat(handler.runs()).isEqualTo(1);
      assertThat(receipt("k1")).isEqualTo(before);
      assertReplayOf(send("k1", ORDER, handler), first);
    }

    @Test
    void another_payload_in_stripes_dialect_is_400_idempotency_error() throws Exception {
      IdempotentEndpoints stripe = endpoints(b -> b.dialect(ServerDialect.STRIPE));
      ScriptedHandler handler = ScriptedHandler.creating();
      stripe.handle(post("alice", "k1", ORDER), POLICY, handler);
      Receipt before = receipt("k1");

      ServerAnswer other = stripe.handle(post("alice", "k1", "{\"amount\":1}"), POLICY, handler);

      assertThat(other.status()).isEqualTo(400);
      assertThat(text(other)).startsWith("{\"error\":{\"type\":\"idempotency_error\"");
      assertThat(handler.runs()).isEqualTo(1);
      assertThat(receipt("k1")).isEqualTo(before);
    }

    @Test
    void the_same_json_with_members_reordered_or_a_volatile_field_changed_is_a_replay()
        throws Exception {
      EndpointPolicy policy = POLICY.toBuilder().volatileFields(Set.of("sentAt")).build();
      ScriptedHandler handler = ScriptedHandler.creating();
      ServerAnswer first = send(endpoints, policy, "k1",
          "{\"amount\":1000,\"currency\":\"JPY\",\"sentAt\":\"09:00\"}", handler);

      ServerAnswer reordered = send(endpoints, policy, "k1",
          "{ \"currency\" : \"JPY\", \"sentAt\":\"09:00\", \"amount\" : 1000 }", handler);
      ServerAnswer resent = send(endpoints, policy, "k1",
          "{\"amount\":1000,\"currency\":\"JPY\",\"sentAt\":\"09:05\"}", handler);

      assertReplayOf(reordered, first);
      assertReplayOf(resent, first);
      assertThat(handler.runs()).isEqualTo(1);
    }

    @Test
    void the_same_key_in_two_scopes_is_two_receipts_and_both_handlers_run() throws Exception {
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer alice = endpoints.handle(post("alice", quoted("shared"), ORDER), POLICY,
          handler);
      ServerAnswer bob = endpoints.handle(post("bob", quoted("shared"), "{\"other\":true}"),
          POLICY, handler);

      assertThat(alice.status()).isEqualTo(201);
      assertThat(bob.status()).isEqualTo(201);
      assertThat(bob.header("Idempotent-Replayed")).isNull();
      assertThat(text(bob)).isEqualTo("{\"run\":2}");
      assertThat(handler.runs()).isEqualTo(2);
      assertThat(receipts.get(idOf("alice", "shared"))).isPresent();
      assertThat(receipts.get(idOf("bob", "shared"))).isPresent();
    }

    @Test
    void a_store_that_fails_before_the_handler_is_503_and_nothing_runs() throws Exception {
      ReceiptStore broken = ReceiptStore.on(new ForwardingIntentStore(new InMemoryIntentStore()) {
        @Override
        public void create(IntentRecord record) {
          throw new StoreException("disk full");
        }
      });
      closing.add(broken);
      IdempotentEndpoints onBroken = IdempotentEndpoints.builder(broken).clock(clock).build();
      closing.add(onBroken);
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer a = onBroken.handle(post("alice", quoted("k1"), ORDER), POLICY, handler);

      assertThat(a.status()).isEqualTo(503);
      assertThat(a.header("Retry-After")).isEqualTo("1");
      assertThat(handler.runs()).isZero();
    }
  }

  // --- A repeat while the first still runs ------------------------------------------------------

  @Nested
  class InProgress {
    @Test
    void a_repeat_while_the_first_runs_gets_409_with_retry_after() throws Exception {
      Gate gate = gate();
      ScriptedHandler handler = new ScriptedHandler((c, run) -> {
        gate.pass();
        return created("{\"run\":" + run + "}");
      });
      Future<ServerAnswer> first = sendAsync(endpoints, POLICY, "k1", ORDER, handler);
      gate.awaitEntered();

      ServerAnswer repeat = send("k1", ORDER, handler);

      assertThat(repeat.status()).isEqualTo(409);
      assertThat(repeat.header("Retry-After")).isEqualTo("1");
      assertThat(text(repeat)).contains("idempotency-key-in-use");
      assertThat(handler.runs()).isEqualTo(1);
      gate.open();
      ServerAnswer done = first.get(10, TimeUnit.SECONDS);
      assertReplayOf(send("k1", ORDER, handler), done);
      assertThat(handler.runs()).isEqualTo(1);
    }

    @Test
    void requests_with_one_key_at_once_run_the_handler_once() throws Exception {
      int callers = 8;
      CyclicBarrier start = new CyclicBarrier(callers);
      ScriptedHandler handler = ScriptedHandler.creating();
      List<Future<ServerAnswer>> calls = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        calls.add(threads.submit(() -> {
          start.await(10, TimeUnit.SECONDS);
          return send("k1", ORDER, handler);
        }));
      }
      List<ServerAnswer> answers = new ArrayList<>();
      for (Future<ServerAnswer> call : calls) {
        answers.add(call.get(10, TimeUnit.SECONDS));
      }

      assertThat(handler.runs()).isEqualTo(1);
      List<ServerAnswer> originals = answers.stream()
          .filter(a -> a.status() == 201 && a.header("Idempotent-Replayed") == null).toList();
      assertThat(originals).hasSize(1);
      assertThat(answers).allSatisfy(a -> {
        if (a.status() != 409) {
          assertThat(a.body()).isEqualTo(originals.get(0).body());
        }
      });
    }

    @Test
    void repeats_at_once_after_the_owner_died_take_it_over_once() throws Exception {
      IdempotentEndpoints dying = IdempotentEndpoints.builder(receipts).clock(clock)
          .instance("instance-dead").build();
      closing.add(dying);
      Gate dead = gate();
      sendAsync(dying, RERUN_SAFE, "k1", ORDER, c -> {
        dead.pass();
        return created("{}");
      });
      dead.awaitEntered();
      dying.close();
      clock.advance(RERUN_SAFE.lease().plusSeconds(1));
      int callers = 8;
      CyclicBarrier start = new CyclicBarrier(callers);
      ScriptedHandler handler = ScriptedHandler.creating();
      List<Future<ServerAnswer>> calls = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        calls.add(threads.submit(() -> {
          start.await(10, TimeUnit.SECONDS);
          return send(endpoints, RERUN_SAFE, "k1", ORDER, handler);
        }));
      }
      for (Future<ServerAnswer> call : calls) {
        assertThat(call.get(10, TimeUnit.SECONDS).status()).isIn(201, 409);
      }

      assertThat(handler.runs()).isEqualTo(1);
      assertThat(receipt("k1").runs()).isEqualTo(2);
      assertThat(events.stream().filter(e -> e.kind() == ReceiptEvent.Kind.TAKEN_OVER)).hasSize(1);
    }

    @Test
    void another_payload_while_the_first_runs_is_a_mismatch_not_a_wait() throws Exception {
      Gate gate = gate();
      ScriptedHandler handler = new ScriptedHandler((c, run) -> {
        gate.pass();
        return created("{}");
      });
      EndpointPolicy waiting = POLICY.toBuilder().inProgressWait(Duration.ofSeconds(30)).build();
      sendAsync(endpoints, waiting, "k1", ORDER, handler);
      gate.awaitEntered();

      ServerAnswer other = send(endpoints, waiting, "k1", "{\"amount\":1}", handler);

      assertThat(other.status()).isEqualTo(422);
    }

    /**
     * The repeat arrives at another instance of the fleet (same store), which cannot be woken by
     * the first request's end: it finds it by re-reading the store while it waits.
     */
    @Test
    void with_an_in_progress_wait_the_repeat_gets_the_replay_once_the_first_finishes()
        throws Exception {
      EndpointPolicy waiting = POLICY.toBuilder().inProgressWait(Duration.ofSeconds(20)).build();
      Gate gate = gate();
      ScriptedHandler handler = new ScriptedHandler((c, run) -> {
        gate.pass();
        return created("{\"run\":" + run + "}");
      });
      ObservedReads reads = new ObservedReads();
      Future<ServerAnswer> first = sendAsync(endpoints, waiting, "k1", ORDER, handler);
      gate.awaitEntered();
      ReceiptStore observed = reads.observe(receipts);
      IdempotentEndpoints other = IdempotentEndpoints.builder(observed).clock(clock)
          .instance("instance-2").build();
      closing.add(other);
      Future<ServerAnswer> repeat = sendAsync(other, waiting, "k1", ORDER, handler);
      reads.awaitProcessingSeen();

      gate.open();
      ServerAnswer done = first.get(10, TimeUnit.SECONDS);
      ServerAnswer replay = repeat.get(10, TimeUnit.SECONDS);

      assertReplayOf(replay, done);
      assertThat(handler.runs()).isEqualTo(1);
    }

    /**
     * The waiter is woken by the first request's end, not found by its next read of the store
     * (every 50 ms): timed from the first's release to the waiter's answer, the median over ten
     * rounds is far below that period. Waking needs a waiter in the same process; the store is
     * re-read for changes made elsewhere. The waiter's thread state is the only sign that it is
     * parked in its wait, so the test watches it before it lets the first request go.
     */
    @Test
    void a_waiting_repeat_is_woken_by_the_first_requests_end() throws Exception {
      EndpointPolicy waiting = POLICY.toBuilder().inProgressWait(Duration.ofSeconds(20)).build();
      List<Long> latencies = new ArrayList<>();
      for (int round = 0; round < 10; round++) {
        String key = "wake-" + round;
        Gate gate = gate();
        ScriptedHandler handler = new ScriptedHandler((c, run) -> {
          gate.pass();
          return created("{}");
        });
        Future<ServerAnswer> first = sendAsync(endpoints, waiting, key, ORDER, handler);
        gate.awaitEntered();
        CompletableFuture<ServerAnswer> repeat = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
          try {
            repeat.complete(send(endpoints, waiting, key, ORDER, handler));
          } catch (Throwable e) {
            repeat.completeExceptionally(e);
          }
        }, "waiting-repeat-" + round);
        waiter.start();
        awaitTimedWaiting(waiter);

        long released = System.nanoTime();
        gate.open();
        ServerAnswer replay = repeat.get(10, TimeUnit.SECONDS);
        latencies.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released));
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        first.get(10, TimeUnit.SECONDS);
      }
      Collections.sort(latencies);
      assertThat(latencies.get(latencies.size() / 2)).as("median ms from release to answer, of "
          + latencies).isLessThan(20);
    }

    private void awaitTimedWaiting(Thread waiter) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (waiter.getState() != Thread.State.TIMED_WAITING) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the repeat never waited: " + waiter.getState());
        }
        Thread.onSpinWait();
      }
    }

    /**
     * A slow handler keeps its receipt: its lease (1 s here) is renewed while it runs, so a repeat
     * that arrives after the first lease would have run out still gets 409, never a takeover. On
     * the system clock, since renewal runs on a real timer; the test waits for the renewals the
     * store saw, not for time.
     */
    @Test
    void lease_renewal_keeps_a_slow_handlers_receipt_from_being_taken_over() throws Exception {
      EndpointPolicy shortLease = RERUN_SAFE.toBuilder().lease(Duration.ofSeconds(1)).build();
      CountDownLatch renewals = new CountDownLatch(4);
      AtomicReference<Instant> firstLease = new AtomicReference<>();
      ReceiptStore counted = ReceiptStore.on(new ForwardingIntentStore(new InMemoryIntentStore()) {
        @Override
        public void create(IntentRecord record) {
          super.create(record);
          firstLease.compareAndSet(null, record.nextAttemptAt());
        }

        @Override
        public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
          boolean stored = super.compareAndSet(expected, replacement);
          if (stored && replacement.nextAttemptAt() != null && expected.nextAttemptAt() != null
              && replacement.nextAttemptAt().isAfter(expected.nextAttemptAt())) {
            renewals.countDown();
          }
          return stored;
        }
      });
      closing.add(counted);
      IdempotentEndpoints real = IdempotentEndpoints.builder(counted)
          .clock(Clock.systemUTC()).build();
      closing.add(real);
      Gate gate = gate();
      ScriptedHandler handler = new ScriptedHandler((c, run) -> {
        gate.pass();
        return created("{\"run\":" + run + "}");
      });
      Future<ServerAnswer> first = sendAsync(real, shortLease, "k1", ORDER, handler);
      gate.awaitEntered();

      assertThat(renewals.await(10, TimeUnit.SECONDS)).as("four renewals").isTrue();
      assertThat(Instant.now()).as("past the first lease").isAfter(firstLease.get());
      ServerAnswer repeat = send(real, shortLease, "k1", ORDER, handler);

      assertThat(repeat.status()).isEqualTo(409);
      assertThat(handler.runs()).isEqualTo(1);
      gate.open();
      ServerAnswer done = first.get(10, TimeUnit.SECONDS);
      assertThat(done.status()).isEqualTo(201);
      assertReplayOf(send(real, shortLease, "k1", ORDER, handler), done);
      assertThat(handler.runs()).isEqualTo(1);
    }
  }

  /**
   * A lease renewal that runs just as the handler returns (the timer fired before it was
   * canceled) must not cost the answer. The renewal is made to land at that instant through the
   * clock, which the core reads between taking the receipt its end is built on and writing that
   * end; the test calls {@link HandlerContext#renewLease()} there, as the timer does.
   */
  @Test
  void a_lease_renewal_landing_as_the_handler_returns_does_not_lose_the_answer()
      throws Exception {
    AtomicReference<HandlerContext> running = new AtomicReference<>();
    AtomicBoolean armed = new AtomicBoolean();
    AtomicInteger renewed = new AtomicInteger();
    Clock renewingAtTheEnd = new Clock() {
      @Override
      public Instant instant() {
        Instant now = clock.instant();
        if (armed.compareAndSet(true, false) && running.get().renewLease()) {
          renewed.incrementAndGet();
        }
        return now;
      }

      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        return this;
      }
    };
    IdempotentEndpoints ending = endpoints(b -> b.clock(renewingAtTheEnd));
    ScriptedHandler handler = new ScriptedHandler((c, run) -> {
      running.set(c);
      armed.set(true);
      return created("{\"run\":" + run + "}");
    });

    ServerAnswer first = send(ending, POLICY, "k1", ORDER, handler);

    assertThat(renewed.get()).as("the renewal ran at the handler's end").isEqualTo(1);
    assertThat(first.status()).isEqualTo(201);
    assertThat(receipt("k1").state()).isEqualTo(ReceiptState.COMPLETED);
    assertReplayOf(send(ending, POLICY, "k1", ORDER, handler), first);
    assertThat(handler.runs()).isEqualTo(1);
  }

  // --- Failures release; committed effects stay pending -----------------------------------------

  @Nested
  class Failures {
    @ParameterizedTest(name = "the handler answers {0}")
    @ValueSource(ints = {500, 503, 429, 401})
    void a_passing_failure_releases_the_key_and_the_next_repeat_runs_again(int status)
        throws Exception {
      ScriptedHandler handler = new ScriptedHandler((c, run) -> run == 1
          ? ServerAnswer.json(status, "{\"error\":\"try again\"}") : created("{\"run\":2}"));

      ServerAnswer failed = send("k1", ORDER, handler);
      Receipt released = receipt("k1");
      ServerAnswer retried = send("k1", ORDER, handler);

      assertThat(failed.status()).isEqualTo(status);
      assertThat(released.state()).isEqualTo(ReceiptState.RELEASED);
      assertThat(released.answer()).isNull();
      assertThat(retried.status()).isEqualTo(201);
      assertThat(retried.header("Idempotent-Replayed")).isNull();
      assertThat(handler.runs()).isEqualTo(2);
      assertThat(receipt("k1").runs()).isEqualTo(2);
      assertThat(receipt("k1").state()).isEqualTo(ReceiptState.COMPLETED);
    }

    @Test
    void a_handler_that_throws_releases_the_key_and_the_next_repeat_runs_again()
        throws Exception {
      ScriptedHandler handler = new ScriptedHandler((c, run) -> {
        if (run == 1) {
          throw new HandlerFailure("database down");
        }
        return created("{\"run\":2}");
      });

      assertThatThrownBy(() -> send("k1", ORDER, handler)).isInstanceOf(HandlerFailure.class);
      assertThat(receipt("k1").state()).isEqualTo(ReceiptState.RELEASED);
      ServerAnswer retried = send("k1", ORDER, handler);

      assertThat(retried.status()).isEqualTo(201);
      assertThat(handler.runs()).isEqualTo(2);
      assertThat(receipt("k1").runs()).isEqualTo(2);
      assertThat(kinds()).containsExactly(ReceiptEvent.Kind.RESERVED,
          ReceiptEvent.Kind.RELEASED, ReceiptEvent.Kind.TAKEN_OVER,
          ReceiptEvent.Kind.COMPLETED);
    }

    @Test
    void a_store_failure_inside_the_handler_is_the_handlers_failure_not_a_503()
        throws Exception {
      ScriptedHandler handler = new ScriptedHandler((c, run) -> {
        throw new StoreException("the app's own database refused the write");
      });

      assertThatThrownBy(() -> send("k1", ORDER, handler)).isInstanceOf(StoreException.class)
          .hasMessageContaining("the app's own database");
      assertThat(receipt("k1").state()).isEqualTo(ReceiptState.RELEASED);
      assertThat(kinds()).containsExactly(ReceiptEvent.Kind.RESERVED,
          ReceiptEvent.Kind.RELEASED);
    }

    @Test
    void the_status_url_of_a_released_receipt_is_409() throws Exception {
      ScriptedHandler handler = new ScriptedHandler((c, run) -> ServerAnswer.json(503, "{}"));
      send("k1", ORDER, handler);

      ServerAnswer status = endpoints.status(post("alice", null, ""), OPERATION,
          receipt("k1").statusToken());

      assertThat(status.status()).isEqualTo(409);
    }

    @Test
    void a_handler_that_throws_after_committing_effects_stays_pending_and_never_runs_again()
        throws Exception {
      ScriptedHandler handler = new ScriptedHandler((c, run) -> {
        c.effectsCommitted("order-" + run);
        throw new HandlerFailure("the answer could not be rendered");
      });

      assertThatThrownBy(() -> send(endpoints, RERUN_SAFE, "k1", ORDER, handler))
          .isInstanceOf(HandlerFailure.class);
      ServerAnswer repeat = send(endpoints, RERUN_SAFE, "k1", ORDER, handler);
      ServerAnswer again = send(endpoints, RERUN_SAFE, "k1", ORDER, handler);

      for (ServerAnswer a : List.of(repeat, again)) {
        assertThat(a.status()).isEqualTo(202);
        assertThat(a.header("Location")).isEqualTo(endpoints.statusUrl(receipt("k1")));
        assertThat(a.header("Retry-After")).isEqualTo("1");
      }
      assertThat(handler.runs()).isEqualTo(1);
      Receipt r = receipt("k1");
      assertThat(r.state()).isEqualTo(ReceiptState.PENDING);
      assertThat(r.effectsCommitted()).isTrue();
      assertThat(r.reference()).isEqualTo("order-1");
    }

    @Test
    void a_server_error_after_committing_effects_stays_pending_too() throws Exception {
      ScriptedHandler handler = new ScriptedHandler((c, run) -> {
        c.effectsCommitted("order-" + run);
        return ServerAnswer.json(500, "{}");
      });

      send("k1", ORDER, handler);
      ServerAnswer repeat = send("k1", ORDER, handler);

      assertThat(repeat.status()).isEqualTo(202);
      assertThat(handler.runs()).isEqualTo(1);
      assertThat(receipt("k1").state()).isEqualTo(ReceiptState.PENDING);
    }
  }

  // --- Pending, settle and the status URL -------------------------------------------------------

  @Nested
  class Pending {
    private final ScriptedHandler waitsOnProvider = new ScriptedHandler((c, run) -> {
      c.pending("intent-" + c.outboundKey("charge"), "the provider's answer is unknown");
      return created("{\"never\":\"sent\"}");
    });

    @Test
    void a_handler_that_declares_pending_answers_202_with_a_status_url() throws Exception {
      ServerAnswer first = send("k1", ORDER, waitsOnProvider);
      ServerAnswer repeat = send("k1", ORDER, waitsOnProvider);

      Receipt r = receipt("k1");
      String statusUrl = "/oncely/receipts/" + OPERATION + "/" + r.statusToken();
      for (ServerAnswer a : List.of(first, repeat)) {
        assertThat(a.status()).isEqualTo(202);
        assertThat(a.header("Location")).isEqualTo(statusUrl);
        assertThat(a.header("Retry-After")).isEqualTo("1");
      }
      assertThat(statusUrl).doesNotContain("k1").doesNotContain("alice");
      assertThat(waitsOnProvider.runs()).isEqualTo(1);
      assertThat(r.state()).isEqualTo(ReceiptState.PENDING);
      assertThat(r.reason()).isEqualTo("the provider's answer is unknown");
      assertThat(r.reference()).startsWith("intent-");
      assertThat(kinds()).containsExactly(ReceiptEvent.Kind.RESERVED,
          ReceiptEvent.Kind.PENDING, ReceiptEvent.Kind.PENDING_ANSWERED);
    }

    @Test
    void settle_makes_every_later_repeat_a_replay_of_the_settled_answer() throws Exception {
      send("k1", ORDER, waitsOnProvider);
      ServerAnswer settledWith = created("{\"charged\":true}");

      boolean settled = endpoints.settle(idOf("alice", "k1"), settledWith, POLICY);
      boolean twice = endpoints.settle(idOf("alice", "k1"), created("{\"charged\":2}"), POLICY);

      assertThat(settled).isTrue();
      assertThat(twice).as("only a pending receipt settles").isFalse();
      assertReplayOf(send("k1", ORDER, waitsOnProvider), settledWith);
      assertThat(waitsOnProvider.runs()).isEqualTo(1);
      assertThat(endpoints.settle(idOf("alice", "unknown"), settledWith, POLICY)).isFalse();
    }

    @Test
    void the_status_url_answers_202_while_pending_and_the_stored_answer_once_settled()
        throws Exception {
      ServerAnswer first = send("k1", ORDER, waitsOnProvider);
      String token = tokenOf(first.header("Location"));

      ServerAnswer whilePending = endpoints.status(post("alice", null, ""), OPERATION, token);
      endpoints.settle(idOf("alice", "k1"), created("{\"charged\":true}"), POLICY);
      ServerAnswer settled = endpoints.status(post("alice", null, ""), OPERATION, token);

      assertThat(whilePending.status()).isEqualTo(202);
      assertThat(whilePending.header("Location")).isEqualTo(first.header("Location"));
      assertThat(settled.status()).isEqualTo(201);
      assertThat(text(settled)).isEqualTo("{\"charged\":true}");
    }

    @Test
    void the_status_url_is_404_in_another_scope_another_operation_or_for_a_bad_token()
        throws Exception {
      ServerAnswer first = send("k1", ORDER, waitsOnProvider);
      String token = tokenOf(first.header("Location"));

      assertThat(endpoints.status(post("bob", null, ""), OPERATION, token).status())
          .isEqualTo(404);
      assertThat(endpoints.status(post("alice", null, ""), "refunds.create", token).status())
          .isEqualTo(404);
      for (String bad : List.of("no-such-token", "", "x".repeat(300), "../" + token,
          token + "\n")) {
        assertThat(endpoints.status(post("alice", null, ""), OPERATION, bad).status())
            .as("token [%s]", bad).isEqualTo(404);
      }
    }

    private String tokenOf(String location) {
      String prefix = endpoints.statusPath() + "/" + OPERATION + "/";
      assertThat(location).startsWith(prefix);
      return location.substring(prefix.length());
    }
  }

  // --- The owner died: leases, takeovers, recovery, fencing -------------------------------------

  @Nested
  class OwnerDied {
    private final AtomicInteger recoveries = new AtomicInteger();
    private final List<Receipt> recovered = new CopyOnWriteArrayList<>();

    /**
     * Starts {@code key} on an instance that then "dies": its handler (after {@code before})
     * never returns while the test runs and its lease renewals are stopped; the clock then moves
     * past the lease.
     */
    private Gate dieWhileRunning(String key, EndpointPolicy policy, Run before) throws Exception {
      IdempotentEndpoints dying = IdempotentEndpoints.builder(receipts).clock(clock)
          .instance("instance-dead").listener(events::add).build();
      closing.add(dying);
      Gate gate = gate();
      sendAsync(dying, policy, key, ORDER, (EndpointHandler) c -> {
        before.run(c);
        gate.pass();
        return created("{\"from\":\"the dead owner\"}");
      });
      gate.awaitEntered();
      dying.close();
      clock.advance(policy.lease().plusSeconds(1));
      return gate;
    }

    private IdempotentEndpoints withRecovery(RecoveryDecision decision) {
      return endpoints(b -> b.instance("instance-recovering").recovery(r -> {
        recoveries.incrementAndGet();
        recovered.add(r);
        return decision;
      }));
    }

    @Test
    void on_a_rerun_safe_endpoint_the_repeat_takes_over_and_runs_again() throws Exception {
      dieWhileRunning("k1", RERUN_SAFE, c -> {});
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer repeat = send(endpoints, RERUN_SAFE, "k1", ORDER, handler);

      assertThat(repeat.status()).isEqualTo(201);
      assertThat(handler.runs()).isEqualTo(1);
      Receipt r = receipt("k1");
      assertThat(r.runs()).isEqualTo(2);
      assertThat(r.state()).isEqualTo(ReceiptState.COMPLETED);
      assertThat(r.leaseOwner()).isEqualTo("instance-live");
      assertThat(kinds()).contains(ReceiptEvent.Kind.TAKEN_OVER);
    }

    @Test
    void before_the_lease_runs_out_the_repeat_is_in_progress_not_a_takeover() throws Exception {
      IdempotentEndpoints dying = IdempotentEndpoints.builder(receipts).clock(clock)
          .instance("instance-dead").build();
      closing.add(dying);
      Gate gate = gate();
      sendAsync(dying, RERUN_SAFE, "k1", ORDER, c -> {
        gate.pass();
        return created("{}");
      });
      gate.awaitEntered();
      dying.close();
      clock.advance(RERUN_SAFE.lease().minusMillis(1));
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer repeat = send(endpoints, RERUN_SAFE, "k1", ORDER, handler);

      assertThat(repeat.status()).isEqualTo(409);
      assertThat(handler.runs()).isZero();
    }

    @Test
    void on_an_endpoint_not_safe_to_rerun_without_recovery_the_receipt_goes_pending()
        throws Exception {
      dieWhileRunning("k1", POLICY, c -> {});
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer repeat = send("k1", ORDER, handler);
      ServerAnswer again = send("k1", ORDER, handler);

      for (ServerAnswer a : List.of(repeat, again)) {
        assertThat(a.status()).isEqualTo(202);
        assertThat(a.header("Location")).isEqualTo(endpoints.statusUrl(receipt("k1")));
      }
      assertThat(handler.runs()).isZero();
      assertThat(receipt("k1").state()).isEqualTo(ReceiptState.PENDING);
      assertThat(receipt("k1").runs()).isEqualTo(1);
    }

    @Test
    void not_safe_to_rerun_the_recovery_is_asked_and_its_answer_settles_the_receipt()
        throws Exception {
      dieWhileRunning("k1", POLICY, c -> {});
      ServerAnswer found = created("{\"found\":\"p-9\"}");
      IdempotentEndpoints recovering = withRecovery(RecoveryDecision.answer(found));
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer repeat = send(recovering, POLICY, "k1", ORDER, handler);
      ServerAnswer later = send(recovering, POLICY, "k1", ORDER, handler);

      assertReplayOf(repeat, found);
      assertReplayOf(later, found);
      assertThat(handler.runs()).isZero();
      assertThat(recoveries.get()).isEqualTo(1);
      assertThat(recovered.get(0).state()).isEqualTo(ReceiptState.PENDING);
      assertThat(receipt("k1").state()).isEqualTo(ReceiptState.COMPLETED);
      assertThat(receipt("k1").runs()).isEqualTo(1);
    }

    @Test
    void not_safe_to_rerun_the_recovery_may_say_rerun_and_the_handler_runs_again()
        throws Exception {
      dieWhileRunning("k1", POLICY, c -> {});
      IdempotentEndpoints recovering = withRecovery(RecoveryDecision.rerun());
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer repeat = send(recovering, POLICY, "k1", ORDER, handler);
      ServerAnswer later = send(recovering, POLICY, "k1", ORDER, handler);

      assertThat(repeat.status()).isEqualTo(201);
      assertReplayOf(later, repeat);
      assertThat(handler.runs()).isEqualTo(1);
      assertThat(receipt("k1").runs()).isEqualTo(2);
      assertThat(recoveries.get()).isEqualTo(1);
      assertThat(kinds()).as("one takeover, counted once")
          .filteredOn(k -> k == ReceiptEvent.Kind.TAKEN_OVER).hasSize(1);
    }

    @Test
    void not_safe_to_rerun_an_unknown_recovery_keeps_the_receipt_pending() throws Exception {
      dieWhileRunning("k1", POLICY, c -> {});
      IdempotentEndpoints recovering = withRecovery(RecoveryDecision.unknown("not yet"));
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer repeat = send(recovering, POLICY, "k1", ORDER, handler);
      ServerAnswer later = send(recovering, POLICY, "k1", ORDER, handler);

      assertThat(repeat.status()).isEqualTo(202);
      assertThat(later.status()).isEqualTo(202);
      assertThat(handler.runs()).isZero();
      assertThat(recoveries.get()).as("asked on every repeat").isEqualTo(2);
      assertThat(receipt("k1").state()).isEqualTo(ReceiptState.PENDING);
    }

    @Test
    void a_failing_recovery_keeps_the_receipt_pending() throws Exception {
      dieWhileRunning("k1", POLICY, c -> {});
      IdempotentEndpoints recovering = endpoints(b -> b.recovery(r -> {
        throw new IllegalStateException("ledger unreachable");
      }));
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer repeat = send(recovering, POLICY, "k1", ORDER, handler);

      assertThat(repeat.status()).isEqualTo(202);
      assertThat(handler.runs()).isZero();
    }

    @Test
    void after_committed_effects_the_recovery_renders_from_the_reference_and_never_runs_again()
        throws Exception {
      dieWhileRunning("k1", RERUN_SAFE, c -> c.effectsCommitted("order-42"));
      IdempotentEndpoints recovering = endpoints(b -> b.recovery(r -> {
        recovered.add(r);
        return RecoveryDecision.answer(created("{\"order\":\"" + r.reference() + "\"}"));
      }));
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer repeat = send(recovering, RERUN_SAFE, "k1", ORDER, handler);
      ServerAnswer later = send(recovering, RERUN_SAFE, "k1", ORDER, handler);

      assertThat(text(repeat)).isEqualTo("{\"order\":\"order-42\"}");
      assertReplayOf(later, repeat);
      assertThat(handler.runs()).isZero();
      assertThat(recovered).hasSize(1);
      assertThat(recovered.get(0).effectsCommitted()).isTrue();
      assertThat(receipt("k1").runs()).isEqualTo(1);
    }

    @Test
    void after_committed_effects_without_recovery_the_receipt_goes_pending_never_runs_again()
        throws Exception {
      dieWhileRunning("k1", RERUN_SAFE, c -> c.effectsCommitted("order-42"));
      ScriptedHandler handler = ScriptedHandler.creating();

      ServerAnswer repeat = send(endpoints, RERUN_SAFE, "k1", ORDER, handler);
      ServerAnswer later = send(endpoints, RERUN_SAFE, "k1", ORDER, handler);

      assertThat(repeat.status()).isEqualTo(202);
      assertThat(later.status()).isEqualTo(202);
      assertThat(handler.runs()).isZero();
      assertThat(receipt("k1").state()).isEqualTo(ReceiptState.PENDING);
      assertThat(receipt("k1").reference()).isEqualTo("order-42");
    }

    @Test
    void a_frozen_owner_whose_receipt_was_taken_over_is_fenced_out() throws Exception {
      Gate frozen = gate();
      AtomicReference<Throwable> frozenRecord = new AtomicReference<>();
      IdempotentEndpoints slow = IdempotentEndpoints.builder(receipts).clock(clock)
          .instance("instance-frozen").listener(events::add).build();
      closing.add(slow);
      Future<ServerAnswer> frozenCall = sendAsync(slow, RERUN_SAFE, "k1", ORDER, c -> {
        frozen.pass();
        try {
          c.effectsCommitted("order-from-the-frozen-owner");
        } catch (ReceiptFencedException e) {
          frozenRecord.set(e);
        }
        return created("{\"from\":\"the frozen owner\"}");
      });
      frozen.awaitEntered();
      // A frozen process renews nothing: stop the slow instance's lease sweep (its handler still
      // runs and finishes later), or a sweep after the clock moved would renew the lease.
      slow.close();
      clock.advance(RERUN_SAFE.lease().plusSeconds(1));
      ScriptedHandler handler = ScriptedHandler.creating();
      ServerAnswer takeover = send(endpoints, RERUN_SAFE, "k1", ORDER, handler);
      Receipt afterTakeover = receipt("k1");

      frozen.open();
      frozenCall.get(10, TimeUnit.SECONDS);

      assertThat(takeover.status()).isEqualTo(201);
      assertThat(frozenRecord.get()).as("the frozen owner's recovery point is refused")
          .isInstanceOf(ReceiptFencedException.class);
      assertThat(kinds()).contains(ReceiptEvent.Kind.FENCED_OUT);
      assertThat(receipt("k1")).isEqualTo(afterTakeover);
      assertThat(receipt("k1").effectsCommitted()).isFalse();
      assertReplayOf(send(endpoints, RERUN_SAFE, "k1", ORDER, handler), takeover);
    }
  }

  /** One step of a dying handler before it stops. */
  @FunctionalInterface
  interface Run {
    void run(HandlerContext context) throws Exception;
  }

  /** Signals once a repeat read the receipt while it was processing. */
  static final class ObservedReads {
    private final CountDownLatch processingSeen = new CountDownLatch(1);

    ReceiptStore observe(ReceiptStore receipts) {
      return ReceiptStore.on(new ForwardingIntentStore(receipts.intentStore()) {
        @Override
        public Optional<IntentRecord> get(IntentId id) {
          Optional<IntentRecord> r = super.get(id);
          if (r.isPresent() && r.get().state() == IntentState.IN_FLIGHT) {
            processingSeen.countDown();
          }
          return r;
        }

        @Override
        public void close() {
          // The observed store belongs to the test.
        }
      });
    }

    void awaitProcessingSeen() throws InterruptedException {
      if (!processingSeen.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("the repeat never read the processing receipt");
      }
    }
  }

  private static byte[] gzip(byte[] bytes) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(bytes);
    }
    return out.toByteArray();
  }
}
