package dev.oncely.server.servlet;

import static dev.oncely.server.servlet.PlainClient.newKey;
import static dev.oncely.server.servlet.PlainClient.wireKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.ReceiptEvent;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.ScopeResolver;
import dev.oncely.server.ServerAnswer;
import dev.oncely.server.ServerDialect;
import dev.oncely.server.servlet.PlainClient.Reply;
import jakarta.servlet.http.HttpServlet;
import java.io.BufferedReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.BufferedSink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link IdempotencyFilter} in a real Tomcat, in front of plain servlets, talked to by plain
 * OkHttp (a third-party client that mints its own keys): what a client of any make sees on the
 * wire. Every test asserts what the servlet committed (the {@link PaymentLedger}) as well as what
 * the client received.
 */
class IdempotencyFilterTest {
  private static final String BODY = "{\"amount\":1200,\"currency\":\"EUR\",\"customer\":\"c-1\"}";
  private static final String OTHER_BODY =
      "{\"amount\":1300,\"currency\":\"EUR\",\"customer\":\"c-1\"}";
  private static final EndpointPolicy PAYMENTS = EndpointPolicy.builder("payments.create").build();

  private final PaymentLedger ledger = new PaymentLedger();
  private final PlainClient client = new PlainClient();
  private final List<ReceiptEvent.Kind> events = new CopyOnWriteArrayList<>();
  private IdempotentEndpoints endpoints;
  private TomcatServer server;

  @AfterEach
  void stop() {
    // The endpoints first, as an application stops them before its container: the lease thread
    // started inside a request belongs to the application.
    if (endpoints != null) {
      endpoints.close();
      endpoints.receipts().close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Tomcat with the filter serving {@code POST /payments} as {@link #PAYMENTS}. */
  private HttpUrl start(ServerDialect dialect, HttpServlet servlet) {
    return start(dialect, EndpointRoutes.builder().route("POST", "/payments", PAYMENTS).build(),
        servlet, b -> b);
  }

  private HttpUrl start(ServerDialect dialect, EndpointPolicy policy, HttpServlet servlet) {
    return start(dialect, EndpointRoutes.builder().route("POST", "/payments", policy).build(),
        servlet, b -> b);
  }

  private HttpUrl start(ServerDialect dialect, EndpointRoutes routes, HttpServlet servlet,
      UnaryOperator<IdempotentEndpoints.Builder> setup) {
    endpoints = setup.apply(IdempotentEndpoints.builder(ReceiptStore.on(new InMemoryIntentStore()))
        .dialect(dialect)
        .listener(e -> events.add(e.kind()))).build();
    server = TomcatServer.builder()
        .filter(new IdempotencyFilter(endpoints, routes))
        .servlet(servlet)
        .start();
    return server.url("/payments");
  }

  private PaymentsServlet payments() {
    return new PaymentsServlet(ledger);
  }

  // --- replays ---

  @ParameterizedTest
  @EnumSource(ServerDialect.class)
  void a_repeat_gets_the_stored_answer_byte_for_byte_with_only_allow_listed_headers(
      ServerDialect dialect) {
    HttpUrl url = start(dialect, payments());
    String key = newKey();

    Reply first = client.post(url, wireKey(dialect, key), BODY);
    Reply repeat = client.post(url, wireKey(dialect, key), BODY);

    assertThat(first.status()).isEqualTo(201);
    assertThat(first.header("Set-Cookie")).startsWith("session=s-pay_1");
    assertThat(first.header("X-Served-By")).isEqualTo("tomcat");
    assertThat(first.header("Idempotent-Replayed")).isNull();
    assertThat(repeat.status()).isEqualTo(201);
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.header("Location")).isEqualTo("/payments/pay_1")
        .isEqualTo(first.header("Location"));
    assertThat(repeat.header("Content-Type")).isEqualTo(first.header("Content-Type"));
    assertThat(repeat.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(repeat.header("Set-Cookie")).as("a cookie is never replayed").isNull();
    assertThat(repeat.header("X-Served-By")).as("not on the allow-list").isNull();
    assertThat(ledger.effectsOf(key)).isEqualTo(1);
    assertThat(events).containsExactly(ReceiptEvent.Kind.RESERVED, ReceiptEvent.Kind.COMPLETED,
        ReceiptEvent.Kind.REPLAYED);
  }

  @Test
  void headers_a_policy_allows_are_replayed_and_cookies_never() {
    assertThatThrownBy(() -> EndpointPolicy.builder("p").replayedHeaders(List.of("Set-Cookie")))
        .isInstanceOf(IllegalArgumentException.class);
    EndpointPolicy policy = PAYMENTS.toBuilder()
        .replayedHeaders(List.of("Content-Type", "X-Served-By")).build();
    HttpUrl url = start(ServerDialect.IETF, policy, payments());
    String key = wireKey(ServerDialect.IETF, newKey());

    client.post(url, key, BODY);
    Reply repeat = client.post(url, key, BODY);

    assertThat(repeat.replayed()).isTrue();
    assertThat(repeat.header("X-Served-By")).isEqualTo("tomcat");
    assertThat(repeat.header("Location")).as("left off this policy's list").isNull();
    assertThat(repeat.header("Set-Cookie")).isNull();
  }

  @Test
  void a_replay_over_http2_prior_knowledge_is_byte_for_byte_too() {
    endpoints = IdempotentEndpoints.builder(ReceiptStore.on(new InMemoryIntentStore())).build();
    server = TomcatServer.builder()
        .filter(new IdempotencyFilter(endpoints,
            EndpointRoutes.builder().route("POST", "/payments", PAYMENTS).build()))
        .servlet(payments())
        .http2()
        .start();
    PlainClient h2 = new PlainClient(new OkHttpClient.Builder()
        .protocols(List.of(Protocol.H2_PRIOR_KNOWLEDGE)));
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply first = h2.post(server.url("/payments"), key, BODY);
    Reply repeat = h2.post(server.url("/payments"), key, BODY);

    assertThat(first.protocol()).isEqualTo(Protocol.H2_PRIOR_KNOWLEDGE);
    assertThat(first.status()).isEqualTo(201);
    assertThat(first.header("set-cookie")).isNotNull();
    assertThat(repeat.protocol()).isEqualTo(Protocol.H2_PRIOR_KNOWLEDGE);
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.replayed()).isTrue();
    assertThat(repeat.header("set-cookie")).isNull();
    assertThat(ledger.effects()).isEqualTo(1);
  }

  // --- another payload under the key ---

  @Test
  void another_payload_under_the_key_is_a_422_problem_and_the_original_stays() {
    HttpUrl url = start(ServerDialect.IETF, payments());
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply first = client.post(url, key, BODY);
    Reply other = client.post(url, key, OTHER_BODY);
    Reply again = client.post(url, key, BODY);

    assertThat(other.status()).isEqualTo(422);
    assertThat(other.header("Content-Type")).isEqualTo("application/problem+json");
    assertThat(other.text()).contains("\"status\":422",
        "\"type\":\"https://oncely.dev/problems/idempotency-key-reused\"");
    assertThat(other.replayed()).isFalse();
    assertThat(again.body()).as("the original answer is untouched").isEqualTo(first.body());
    assertThat(again.replayed()).isTrue();
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @Test
  void another_payload_under_the_key_is_400_idempotency_error_in_the_stripe_dialect() {
    HttpUrl url = start(ServerDialect.STRIPE, payments());
    String key = newKey();

    Reply first = client.post(url, key, BODY);
    Reply other = client.post(url, key, OTHER_BODY);
    Reply again = client.post(url, key, BODY);

    assertThat(first.status()).as("Stripe keys are raw, unquoted").isEqualTo(201);
    assertThat(other.status()).isEqualTo(400);
    assertThat(other.text()).startsWith("{\"error\":{\"type\":\"idempotency_error\"");
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @Test
  void the_payload_is_compared_as_json_so_member_order_and_spacing_are_the_same_payload() {
    HttpUrl url = start(ServerDialect.IETF, payments());
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply first = client.post(url, key, BODY);
    Reply reordered = client.post(url, key,
        "{ \"customer\": \"c-1\", \"currency\": \"EUR\", \"amount\": 1200 }");

    assertThat(reordered.replayed()).isTrue();
    assertThat(reordered.body()).isEqualTo(first.body());
    assertThat(ledger.effects()).isEqualTo(1);
  }

  // --- repeats while the first runs ---

  @ParameterizedTest
  @EnumSource(ServerDialect.class)
  void a_repeat_while_the_first_runs_gets_409_with_retry_after_and_never_runs(
      ServerDialect dialect) throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    HttpUrl url = start(dialect, payments().beforeAnswer(() -> {
      entered.countDown();
      release.await(20, TimeUnit.SECONDS);
    }));
    String key = wireKey(dialect, newKey());

    CompletableFuture<Reply> first = CompletableFuture.supplyAsync(() -> client.post(url, key,
        BODY));
    assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
    Reply busy = client.post(url, key, BODY);
    Reply busyOther = client.post(url, key, OTHER_BODY);
    release.countDown();
    Reply firstReply = first.get(20, TimeUnit.SECONDS);
    Reply after = client.post(url, key, BODY);

    assertThat(busy.status()).isEqualTo(409);
    assertThat(busy.header("Retry-After")).isEqualTo("1");
    if (dialect == ServerDialect.IETF) {
      assertThat(busy.text()).contains("https://oncely.dev/problems/idempotency-key-in-use");
      assertThat(busyOther.status()).as("another payload is a mismatch, even while running")
          .isEqualTo(422);
    } else {
      assertThat(busy.text()).contains("\"type\":\"idempotency_error\"");
      assertThat(busyOther.status()).isEqualTo(400);
    }
    assertThat(firstReply.status()).isEqualTo(201);
    assertThat(after.body()).isEqualTo(firstReply.body());
    assertThat(after.replayed()).isTrue();
    assertThat(ledger.effects()).isEqualTo(1);
  }

  // --- refusals before anything runs ---

  @ParameterizedTest
  @EnumSource(ServerDialect.class)
  void a_request_without_a_key_is_400_and_the_servlet_never_runs(ServerDialect dialect) {
    HttpUrl url = start(dialect, payments());

    Reply reply = client.post(url, null, BODY);

    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.text()).contains(dialect == ServerDialect.IETF
        ? "https://oncely.dev/problems/idempotency-key-missing" : "invalid_request_error");
    assertThat(ledger.effects()).isZero();
  }

  @Test
  void malformed_keys_are_400_in_either_dialect_and_the_servlet_never_runs() {
    HttpUrl url = start(ServerDialect.IETF, payments());
    String tooLong = "k".repeat(256);
    List<Reply> ietf = new ArrayList<>();
    ietf.add(client.post(url, "unquoted-key", BODY));
    ietf.add(client.post(url, "\"a key with spaces\"", BODY));
    ietf.add(client.post(url, "\"" + tooLong + "\"", BODY));
    ietf.add(client.send(new Request.Builder().url(url)
        .post(RequestBody.create(BODY, PlainClient.JSON))
        .addHeader("Idempotency-Key", "\"one\"").addHeader("Idempotency-Key", "\"two\"")
        .build()));
    Reply longestAccepted = client.post(url, "\"" + "k".repeat(255) + "\"", BODY);
    stop();
    endpoints = null;
    server = null;
    url = start(ServerDialect.STRIPE, payments());
    Reply stripeTooLong = client.post(url, tooLong, BODY);
    Reply stripeSpace = client.post(url, "a key", BODY);

    for (Reply r : ietf) {
      assertThat(r.status()).as(r.toString()).isEqualTo(400);
      assertThat(r.text()).contains("https://oncely.dev/problems/idempotency-key-malformed")
          .doesNotContain("unquoted-key", "spaces", tooLong);
    }
    assertThat(longestAccepted.status()).isEqualTo(201);
    assertThat(stripeTooLong.status()).isEqualTo(400);
    assertThat(stripeSpace.status()).isEqualTo(400);
    assertThat(stripeSpace.text()).contains("invalid_request_error");
    assertThat(ledger.effects()).as("only the 255-character key ran").isEqualTo(1);
  }

  @Test
  void a_body_over_the_limit_is_413_with_content_length_and_nothing_is_reserved() {
    HttpUrl url = start(ServerDialect.IETF, PAYMENTS.toBuilder().maxBodyBytes(64).build(),
        payments());
    String key = wireKey(ServerDialect.IETF, newKey());
    String big = jsonOfLength(300);
    String atLimit = jsonOfLength(64);

    Reply tooLarge = client.post(url, key, big);
    Reply fits = client.post(url, key, atLimit);

    assertThat(tooLarge.status()).isEqualTo(413);
    assertThat(tooLarge.text()).contains("https://oncely.dev/problems/body-too-large", "64");
    assertThat(fits.status()).as("the key was never reserved by the refused request")
        .isEqualTo(201);
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @Test
  void a_chunked_body_over_the_limit_is_413_and_nothing_is_reserved() {
    HttpUrl url = start(ServerDialect.STRIPE, PAYMENTS.toBuilder().maxBodyBytes(64).build(),
        payments());
    String key = newKey();

    Reply tooLarge = client.post(url, key, chunked(jsonOfLength(5_000)));
    Reply fits = client.post(url, key, chunked(jsonOfLength(64)));

    assertThat(tooLarge.status()).isEqualTo(413);
    assertThat(tooLarge.text()).contains("invalid_request_error", "64");
    assertThat(fits.status()).isEqualTo(201);
    assertThat(ledger.only(key).request()).hasSize(64);
  }

  // --- the servlet API inside an endpoint ---

  @Test
  void the_servlet_reads_the_exact_body_through_getReader_in_its_charset_and_answers_through_getWriter() {
    HttpUrl url = start(ServerDialect.IETF, servlet((request, response) -> {
      StringWriter read = new StringWriter();
      try (BufferedReader reader = request.getReader()) {
        reader.transferTo(read);
      }
      ledger.record(IdempotencyFilter.context(request), read.toString().getBytes(
          StandardCharsets.UTF_8));
      response.setStatus(201);
      response.setContentType("text/plain;charset=UTF-8");
      response.getWriter().print("read " + request.getContentLength() + " bytes: " + read);
    }));
    String key = wireKey(ServerDialect.IETF, newKey());
    byte[] latin1 = "Zahlung für Café".getBytes(StandardCharsets.ISO_8859_1);
    MediaType type = MediaType.get("text/plain; charset=ISO-8859-1");

    Reply first = client.post(url, key, RequestBody.create(latin1, type));
    Reply repeat = client.post(url, key, RequestBody.create(latin1, type));

    assertThat(first.status()).isEqualTo(201);
    assertThat(first.text()).isEqualTo("read 16 bytes: Zahlung für Café");
    assertThat(first.header("Content-Type")).isEqualToIgnoringCase("text/plain;charset=UTF-8");
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.header("Content-Type")).isEqualTo(first.header("Content-Type"));
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @Test
  void the_servlet_reads_the_exact_bytes_through_getInputStream_and_answers_through_getOutputStream() {
    HttpUrl url = start(ServerDialect.IETF, servlet((request, response) -> {
      byte[] in = request.getInputStream().readAllBytes();
      ledger.record(IdempotencyFilter.context(request), in);
      byte[] out = new byte[in.length];
      for (int i = 0; i < in.length; i++) {
        out[i] = (byte) ~in[in.length - 1 - i];
      }
      response.setStatus(200);
      response.setContentType("application/octet-stream");
      response.getOutputStream().write(out);
    }));
    String key = wireKey(ServerDialect.IETF, newKey());
    byte[] bytes = new byte[256];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    MediaType octets = MediaType.get("application/octet-stream");

    Reply first = client.post(url, key, RequestBody.create(bytes, octets));
    Reply repeat = client.post(url, key, RequestBody.create(bytes, octets));

    assertThat(ledger.only(key.substring(1, key.length() - 1)).request()).isEqualTo(bytes);
    assertThat(first.body()).hasSize(256);
    assertThat(first.body()[0]).isEqualTo((byte) ~(byte) 255);
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.replayed()).isTrue();
  }

  @Test
  void a_charset_set_as_a_Charset_is_the_one_the_writer_encodes_in() {
    HttpUrl url = start(ServerDialect.IETF, servlet((request, response) -> {
      ledger.record(IdempotencyFilter.context(request), request.getInputStream().readAllBytes());
      response.setStatus(201);
      response.setContentType("text/plain");
      response.setCharacterEncoding(StandardCharsets.ISO_8859_1);
      response.getWriter().print("Café");
    }));
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply first = client.post(url, key, BODY);
    Reply repeat = client.post(url, key, BODY);

    assertThat(first.header("Content-Type")).isEqualToIgnoringCase(
        "text/plain;charset=ISO-8859-1");
    assertThat(first.body()).isEqualTo("Café".getBytes(StandardCharsets.ISO_8859_1));
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.header("Content-Type")).isEqualTo(first.header("Content-Type"));
  }

  @Test
  void sendError_with_a_business_status_is_stored_and_replayed() {
    HttpUrl url = start(ServerDialect.IETF, servlet((request, response) -> {
      ledger.record(IdempotencyFilter.context(request), request.getInputStream().readAllBytes());
      response.sendError(402, "card declined");
    }));
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply first = client.post(url, key, BODY);
    Reply repeat = client.post(url, key, BODY);

    assertThat(first.status()).isEqualTo(402);
    assertThat(first.text()).as("the servlet's message, not the container's error page")
        .isEqualTo("card declined");
    assertThat(repeat.status()).isEqualTo(402);
    assertThat(repeat.body()).isEqualTo(first.body());
    assertThat(repeat.replayed()).isTrue();
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @Test
  void sendError_with_a_server_error_releases_the_key_and_the_repeat_runs_again() {
    AtomicInteger runs = new AtomicInteger();
    HttpUrl url = start(ServerDialect.IETF, servlet((request, response) -> {
      if (runs.incrementAndGet() == 1) {
        response.sendError(503);
        return;
      }
      ledger.record(IdempotencyFilter.context(request), request.getInputStream().readAllBytes());
      response.setStatus(201);
    }));
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply failed = client.post(url, key, BODY);
    Reply retried = client.post(url, key, BODY);
    Reply repeat = client.post(url, key, BODY);

    assertThat(failed.status()).isEqualTo(503);
    assertThat(retried.status()).isEqualTo(201);
    assertThat(retried.replayed()).isFalse();
    assertThat(repeat.replayed()).isTrue();
    assertThat(runs).hasValue(2);
    assertThat(events).containsSubsequence(ReceiptEvent.Kind.RELEASED,
        ReceiptEvent.Kind.TAKEN_OVER, ReceiptEvent.Kind.COMPLETED, ReceiptEvent.Kind.REPLAYED);
  }

  @Test
  void a_servlet_that_throws_before_any_effect_releases_the_key_and_the_repeat_runs_again() {
    AtomicInteger runs = new AtomicInteger();
    HttpUrl url = start(ServerDialect.IETF, servlet((request, response) -> {
      if (runs.incrementAndGet() == 1) {
        throw new IllegalStateException("the database is failing over");
      }
      ledger.record(IdempotencyFilter.context(request), request.getInputStream().readAllBytes());
      response.setStatus(201);
    }));
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply failed = client.post(url, key, BODY);
    Reply retried = client.post(url, key, BODY);

    assertThat(failed.status()).as("the container's answer to the throw").isEqualTo(500);
    assertThat(retried.status()).isEqualTo(201);
    assertThat(retried.replayed()).isFalse();
    assertThat(ledger.effects()).isEqualTo(1);
    assertThat(events).containsSubsequence(ReceiptEvent.Kind.RELEASED,
        ReceiptEvent.Kind.TAKEN_OVER, ReceiptEvent.Kind.COMPLETED);
  }

  @Test
  void a_servlet_that_throws_after_recording_its_effect_leaves_the_request_pending_never_rerun() {
    AtomicInteger runs = new AtomicInteger();
    HttpUrl url = start(ServerDialect.IETF, servlet((request, response) -> {
      runs.incrementAndGet();
      HandlerContext context = IdempotencyFilter.context(request);
      PaymentLedger.Payment payment = ledger.record(context,
          request.getInputStream().readAllBytes());
      context.effectsCommitted(payment.id());
      throw new IllegalStateException("the answer could not be rendered");
    }));
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply failed = client.post(url, key, BODY);
    Reply repeat = client.post(url, key, BODY);

    assertThat(failed.status()).isEqualTo(500);
    assertThat(repeat.status()).as("the outcome is known to the app only").isEqualTo(202);
    assertThat(repeat.header("Location")).startsWith("/oncely/receipts/payments.create/");
    assertThat(runs).as("never run twice after its effect").hasValue(1);
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @Test
  void sendRedirect_is_stored_as_a_302_with_its_location_and_replayed() {
    HttpUrl url = start(ServerDialect.IETF, servlet((request, response) -> {
      ledger.record(IdempotencyFilter.context(request), request.getInputStream().readAllBytes());
      response.sendRedirect("/payments/pay_1");
    }));
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply first = client.post(url, key, BODY);
    Reply repeat = client.post(url, key, BODY);

    assertThat(first.status()).isEqualTo(302);
    assertThat(first.header("Location")).isEqualTo("/payments/pay_1");
    assertThat(repeat.status()).isEqualTo(302);
    assertThat(repeat.header("Location")).isEqualTo("/payments/pay_1");
    assertThat(repeat.replayed()).isTrue();
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @Test
  void sendRedirect_with_a_status_is_stored_as_that_redirect_and_replayed() {
    HttpUrl url = start(ServerDialect.IETF, servlet((request, response) -> {
      ledger.record(IdempotencyFilter.context(request), request.getInputStream().readAllBytes());
      response.sendRedirect("/payments/pay_1", 303);
    }));
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply first = client.post(url, key, BODY);
    Reply repeat = client.post(url, key, BODY);

    assertThat(first.status()).isEqualTo(303);
    assertThat(first.header("Location")).isEqualTo("/payments/pay_1");
    assertThat(repeat.status()).isEqualTo(303);
    assertThat(repeat.header("Location")).isEqualTo("/payments/pay_1");
    assertThat(repeat.replayed()).isTrue();
    assertThat(ledger.effects()).isEqualTo(1);
  }

  // --- the handler's context ---

  @Test
  void the_context_is_reachable_from_the_servlet_and_its_outbound_key_is_stable_across_a_rerun() {
    List<String> outbound = new CopyOnWriteArrayList<>();
    List<Integer> runs = new CopyOnWriteArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    EndpointPolicy open = EndpointPolicy.builder("payments.create").keyRequired(false).build();
    List<HandlerContext> unprotected = new CopyOnWriteArrayList<>();
    HttpUrl url = start(ServerDialect.IETF, open, servlet((request, response) -> {
      HandlerContext context = IdempotencyFilter.context(request);
      if (!context.isProtected()) {
        unprotected.add(context);
        response.setStatus(201);
        return;
      }
      outbound.add(context.outboundKey("charge"));
      runs.add(context.receipt().runs());
      if (calls.incrementAndGet() == 1) {
        response.sendError(503); // the provider call failed before any effect
        return;
      }
      response.setStatus(201);
    }));
    String key = newKey();

    client.post(url, wireKey(ServerDialect.IETF, key), BODY);
    client.post(url, wireKey(ServerDialect.IETF, key), BODY);
    client.post(url, wireKey(ServerDialect.IETF, newKey()), BODY);
    Reply withoutKey = client.post(url, null, BODY);

    assertThat(outbound).hasSize(3);
    assertThat(outbound.get(1)).as("a re-run sends the provider the same key")
        .isEqualTo(outbound.get(0));
    assertThat(outbound.get(2)).as("another request, another outbound key")
        .isNotEqualTo(outbound.get(0));
    assertThat(outbound.get(0)).doesNotContain(key);
    assertThat(runs).containsExactly(1, 2, 1);
    assertThat(withoutKey.status()).isEqualTo(201);
    assertThat(unprotected).singleElement().satisfies(c -> {
      assertThat(c.isProtected()).isFalse();
      assertThatThrownBy(() -> c.outboundKey("charge"))
          .isInstanceOf(IllegalStateException.class);
    });
  }

  // --- status URLs ---

  @Test
  void the_status_url_answers_202_while_pending_and_the_stored_answer_after_settle() {
    HttpUrl url = start(ServerDialect.IETF,
        EndpointRoutes.builder().route("POST", "/payments", PAYMENTS).build(),
        payments().pendingCharges(), b -> b.scopeResolver(ScopeResolver.header("X-Tenant")));
    String key = wireKey(ServerDialect.IETF, newKey());
    Headers acme = Headers.of("X-Tenant", "acme");

    Reply accepted = send(url, acme, key, BODY);
    HttpUrl status = url.resolve(accepted.header("Location"));
    Reply polled = get(status, acme);
    Reply repeated = send(url, acme, key, BODY);
    Reply otherTenant = get(status, Headers.of("X-Tenant", "umbrella"));
    Reply unknownToken = get(status.resolve("not-a-token"), acme);
    ServerAnswer settledAnswer = ServerAnswer.json(201,
        "{\"id\":\"pay_1\",\"status\":\"succeeded\"}").withHeader("Location", "/payments/pay_1");
    boolean settled = endpoints.settle(ledger.only(unquote(key)).receipt(), settledAnswer,
        PAYMENTS);
    Reply done = get(status, acme);
    Reply repeatedAfter = send(url, acme, key, BODY);

    assertThat(accepted.status()).isEqualTo(202);
    assertThat(accepted.header("Location")).startsWith("/oncely/receipts/payments.create/")
        .doesNotContain(unquote(key));
    assertThat(accepted.header("Retry-After")).isEqualTo("1");
    assertThat(accepted.text()).contains("\"status\":\"processing\"");
    assertThat(polled.status()).isEqualTo(202);
    assertThat(polled.header("Location")).isEqualTo(accepted.header("Location"));
    assertThat(repeated.status()).isEqualTo(202);
    assertThat(repeated.header("Location")).isEqualTo(accepted.header("Location"));
    assertThat(otherTenant.status()).as("another scope never sees the receipt").isEqualTo(404);
    assertThat(unknownToken.status()).isEqualTo(404);
    assertThat(settled).isTrue();
    assertThat(done.status()).isEqualTo(201);
    assertThat(done.body()).isEqualTo(settledAnswer.body());
    assertThat(done.header("Location")).isEqualTo("/payments/pay_1");
    assertThat(done.replayed()).isTrue();
    assertThat(repeatedAfter.body()).isEqualTo(settledAnswer.body());
    assertThat(repeatedAfter.replayed()).isTrue();
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @Test
  void status_urls_name_the_applications_context_path_and_are_served_under_it() {
    endpoints = IdempotentEndpoints.builder(ReceiptStore.on(new InMemoryIntentStore())).build();
    server = TomcatServer.builder()
        .contextPath("/shop")
        .filter(new IdempotencyFilter(endpoints,
            EndpointRoutes.builder().route("POST", "/payments", PAYMENTS).build()))
        .servlet(payments().pendingCharges())
        .start();
    HttpUrl url = server.url("/shop/payments");
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply accepted = client.post(url, key, BODY);
    Reply repeated = client.post(url, key, BODY);
    Reply polled = client.get(url.resolve(accepted.header("Location")));
    endpoints.settle(ledger.single().receipt(), ServerAnswer.json(201, "{\"id\":\"pay_1\"}"),
        PAYMENTS);
    Reply done = client.get(url.resolve(repeated.header("Location")));

    assertThat(accepted.status()).isEqualTo(202);
    assertThat(accepted.header("Location")).startsWith("/shop/oncely/receipts/payments.create/");
    assertThat(repeated.header("Location")).isEqualTo(accepted.header("Location"));
    assertThat(polled.status()).isEqualTo(202);
    assertThat(polled.header("Location")).isEqualTo(accepted.header("Location"));
    assertThat(done.status()).isEqualTo(201);
    assertThat(done.text()).isEqualTo("{\"id\":\"pay_1\"}");
  }

  // --- routes ---

  @Test
  void a_route_with_id_segments_serves_each_resource_under_one_operation() {
    EndpointRoutes routes = EndpointRoutes.builder()
        .route("POST", "/orders/{id}/confirm", EndpointPolicy.builder("orders.confirm").build())
        .build();
    HttpUrl base = start(ServerDialect.IETF, routes, confirmations(), b -> b);
    String k1 = wireKey(ServerDialect.IETF, newKey());
    String k2 = wireKey(ServerDialect.IETF, newKey());

    Reply one = client.post(base.resolve("/orders/o-1/confirm"), k1, BODY);
    Reply two = client.post(base.resolve("/orders/o-2/confirm"), k2, BODY);
    Reply oneAgain = client.post(base.resolve("/orders/o-1/confirm"), k1, BODY);
    Reply deeper = client.post(base.resolve("/orders/o-1/confirm/now"), k1, BODY);
    Reply read = client.get(base.resolve("/orders/o-1/confirm"));

    assertThat(one.text()).isEqualTo("{\"order\":\"o-1\",\"confirmed\":true}");
    assertThat(two.text()).isEqualTo("{\"order\":\"o-2\",\"confirmed\":true}");
    assertThat(oneAgain.replayed()).isTrue();
    assertThat(oneAgain.body()).isEqualTo(one.body());
    assertThat(ledger.only(unquote(k1)).receipt().operation()).isEqualTo("orders.confirm");
    assertThat(ledger.only(unquote(k2)).receipt().operation()).isEqualTo("orders.confirm");
    assertThat(deeper.replayed()).as("another shape of path is not the route").isFalse();
    assertThat(read.replayed()).isFalse();
    assertThat(read.text()).isEqualTo("GET /orders/o-1/confirm passed through");
  }

  @Test
  void one_key_on_another_resource_of_the_same_route_is_a_mismatch_never_the_first_answer() {
    EndpointRoutes routes = EndpointRoutes.builder()
        .route("POST", "/orders/{id}/confirm", EndpointPolicy.builder("orders.confirm").build())
        .build();
    HttpUrl base = start(ServerDialect.IETF, routes, confirmations(), b -> b);
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply one = client.post(base.resolve("/orders/o-1/confirm"), key, BODY);
    Reply two = client.post(base.resolve("/orders/o-2/confirm"), key, BODY);

    assertThat(one.status()).isEqualTo(200);
    assertThat(two.status()).as("order o-2 was never confirmed: " + two).isEqualTo(422);
    assertThat(ledger.effects()).isEqualTo(1);
  }

  @Test
  void unrouted_requests_pass_through_untouched() {
    HttpUrl url = start(ServerDialect.IETF, servlet((request, response) -> {
      HandlerContext context = IdempotencyFilter.context(request);
      ledger.record(context, request.getInputStream().readAllBytes());
      response.setStatus(201);
      response.addHeader("Set-Cookie", "session=plain");
      response.setContentType("text/plain");
      response.getWriter().print("context=" + context + ";");
      response.flushBuffer();
      // Only the container's own response commits on a flush: nothing held it in memory.
      response.getWriter().print("committed=" + response.isCommitted());
    }));
    HttpUrl refunds = url.resolve("/refunds");
    String key = wireKey(ServerDialect.IETF, newKey());

    Reply first = client.post(refunds, key, BODY);
    Reply second = client.post(refunds, key, BODY);
    Reply getPayments = client.get(url);

    for (Reply r : List.of(first, second, getPayments)) {
      assertThat(r.status()).isEqualTo(201);
      assertThat(r.text()).isEqualTo("context=null;committed=true");
      assertThat(r.header("Set-Cookie")).isEqualTo("session=plain");
      assertThat(r.replayed()).isFalse();
    }
    assertThat(ledger.effects()).as("no key was reserved for an unrouted path").isEqualTo(3);
    assertThat(events).isEmpty();
  }

  // --- helpers ---

  /** Confirms the order its path names; a GET is answered as passed through. */
  private HttpServlet confirmations() {
    return servlet((request, response) -> {
      if (request.getMethod().equals("GET")) {
        response.getWriter().print("GET " + request.getRequestURI() + " passed through");
        return;
      }
      ledger.record(IdempotencyFilter.context(request), request.getInputStream().readAllBytes());
      String order = request.getRequestURI().split("/")[2];
      response.setContentType("application/json");
      response.getWriter().print("{\"order\":\"" + order + "\",\"confirmed\":true}");
    });
  }

  private static HttpServlet servlet(TomcatServer.Endpoint endpoint) {
    return new HttpServlet() {
      private static final long serialVersionUID = 1L;

      @Override
      protected void service(jakarta.servlet.http.HttpServletRequest request,
          jakarta.servlet.http.HttpServletResponse response)
          throws jakarta.servlet.ServletException, java.io.IOException {
        endpoint.serve(request, response);
      }
    };
  }

  private Reply send(HttpUrl url, Headers headers, String key, String json) {
    return client.send(new Request.Builder().url(url).headers(headers)
        .header("Idempotency-Key", key).post(RequestBody.create(json, PlainClient.JSON)).build());
  }

  private Reply get(HttpUrl url, Headers headers) {
    return client.send(new Request.Builder().url(url).headers(headers).get().build());
  }

  private static String unquote(String ietfKey) {
    return ietfKey.substring(1, ietfKey.length() - 1);
  }

  /** A JSON object of exactly {@code length} bytes. */
  private static String jsonOfLength(int length) {
    String head = "{\"amount\":1,\"pad\":\"";
    return head + "x".repeat(length - head.length() - 2) + "\"}";
  }

  /** {@code json} sent without a length: {@code Transfer-Encoding: chunked}. */
  private static RequestBody chunked(String json) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    return new RequestBody() {
      @Override
      public MediaType contentType() {
        return PlainClient.JSON;
      }

      @Override
      public long contentLength() {
        return -1;
      }

      @Override
      public void writeTo(BufferedSink sink) throws java.io.IOException {
        for (int i = 0; i < bytes.length; i += 100) {
          sink.write(bytes, i, Math.min(100, bytes.length - i));
          sink.flush();
        }
      }
    };
  }
}
