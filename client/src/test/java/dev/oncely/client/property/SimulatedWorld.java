package dev.oncely.client.property;

import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.property.AnswerCase.Profile;
import dev.oncely.client.property.AnswerCase.Step;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.MismatchAnswer;
import dev.oncely.testing.NoDelayServerSockets;
import dev.oncely.testing.ReceivedRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The two origins of the property tests (the API and a foreign host), each a real MockWebServer
 * that one {@link IdempotentServer} answers. One world per case, closed after it.
 */
final class SimulatedWorld implements AutoCloseable {
  static final String INTENT = "order-1";
  static final String BODY = "{\"order\":\"" + INTENT + "\",\"amount\":1250,\"currency\":\"eur\"}";
  /** The intent's body with a field the intent API leaves out of the fingerprint. */
  static final String BODY_WITH_SENT_AT = "{\"order\":\"" + INTENT
      + "\",\"amount\":1250,\"currency\":\"eur\",\"sentAt\":\"2026-12-01T00:00:00Z\"}";
  static final String CREDENTIAL = "Authorization";
  /** The path the intent is posted to. */
  static final String PAYMENTS = "/payments";
  private static final Pattern ORDER_IN_BODY = Pattern.compile("\"order\"\\s*:\\s*\"([^\"]*)\"");
  private static final Pattern ORDER_IN_PATH = Pattern.compile("/(order-\\d+)(/|$)");

  private final MockWebServer api = new MockWebServer();
  private final MockWebServer foreign = new MockWebServer();
  /** Completed when the server of the current case first dispatches a request. */
  private final CompletableFuture<Void> firstRequest = new CompletableFuture<>();

  SimulatedWorld() {
    try {
      api.setServerSocketFactory(new NoDelayServerSockets());
      foreign.setServerSocketFactory(new NoDelayServerSockets());
      api.start();
      foreign.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  HttpUrl paymentsUrl() {
    return api.url(PAYMENTS);
  }

  /** The API's origin, as a URL to resolve paths against. */
  HttpUrl apiUrl() {
    return api.url("/");
  }

  String apiOrigin() {
    return ReceivedRequest.originOf(api.url("/"));
  }

  String foreignOrigin() {
    return ReceivedRequest.originOf(foreign.url("/"));
  }

  /**
   * Leaves an idle connection to the API in {@code client}'s pool, as an app that called the API
   * before has: OkHttp then sends the intent's first request on it, and after a connection dropped
   * there it resends a request on its own (a request without a body included). Call it before
   * {@link #serve}, which replaces the answers.
   */
  void warmConnection(OkHttpClient client) {
    api.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return new MockResponse.Builder().code(204).build();
      }
    });
    try (Response warm = client.newCall(new Request.Builder().url(api.url("/warm")).build())
        .execute()) {
      if (warm.code() != 204) {
        throw new IllegalStateException("the warm-up call got " + warm.code());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The key retention of the simulated server; the clients are configured with it. */
  static final Duration KEY_RETENTION = Duration.ofHours(24);

  /** A fresh server for {@code c} on {@code clock}, answering on both origins. */
  IdempotentServer serve(AnswerCase c, Clock clock) {
    return serve(c, clock, PAYMENTS, b -> { });
  }

  /**
   * A fresh server for {@code c} on {@code clock} whose redirects keep the intent's {@code path},
   * configured further by {@code more}.
   */
  IdempotentServer serve(AnswerCase c, Clock clock, String path,
      Consumer<IdempotentServer.Builder> more) {
    Profile p = c.server();
    IdempotentServer.Builder b = IdempotentServer.builder()
        .mismatch(mismatch(p.mismatch()))
        .serverErrors(p.serverErrors())
        .asynchronous(p.async())
        .pollStyle(p.pollStyle())
        .locationOnReplay(p.locationOnReplay())
        .replayAcceptedForever(p.replayAcceptedForever())
        .completeAfterPolls(p.completeAfterPolls())
        .keyQuoting(c.keyQuoting())
        .intentOf(SimulatedWorld::intentOf)
        .lateFor(Duration.ofMillis(300))
        .clock(clock)
        .retention(KEY_RETENTION)
        .faults(script(c.steps(), path));
    more.accept(b);
    if (p.statusOnOtherOrigin()) {
      b.statusOrigin(foreign.url("/"));
    }
    IdempotentServer kit = b.build();
    Dispatcher signalling = new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        firstRequest.complete(null);
        return kit.dispatch(request);
      }

      @Override
      public MockResponse peek() {
        return kit.peek();
      }

      @Override
      public void close() {
        kit.close();
      }
    };
    api.setDispatcher(signalling);
    foreign.setDispatcher(signalling);
    return kit;
  }

  /**
   * The order a request belongs to: its JSON's {@code "order"} (a multipart part's JSON included,
   * a gzipped body read as the server decodes it), else the order its path names (a bodyless
   * request), else null (the kit then uses the key).
   */
  static String intentOf(ReceivedRequest r) {
    return intentOf(r.url().encodedPath(), r.body(), r.header("Content-Encoding"));
  }

  /**
   * The order of a request to {@code path} with {@code body} in {@code contentEncoding} (null:
   * none), as {@link #intentOf(ReceivedRequest)}.
   */
  static String intentOf(String path, byte[] body, String contentEncoding) {
    byte[] decoded = body;
    if (contentEncoding != null && contentEncoding.trim().equalsIgnoreCase("gzip")) {
      try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
        decoded = in.readAllBytes();
      } catch (IOException notGzip) {
        decoded = body;
      }
    }
    return intentOf(path, new String(decoded, StandardCharsets.UTF_8));
  }

  /** The order of a request to {@code path} with {@code body}, as {@link #intentOf(ReceivedRequest)}. */
  static String intentOf(String path, String body) {
    Matcher inBody = ORDER_IN_BODY.matcher(body);
    if (inBody.find()) {
      return inBody.group(1);
    }
    Matcher inPath = ORDER_IN_PATH.matcher(path);
    return inPath.find() ? inPath.group(1) : null;
  }

  private FaultScript script(List<Step> steps, String path) {
    FaultScript.Builder b = FaultScript.builder();
    for (int i = 0; i < steps.size(); i++) {
      Fault f = fault(steps.get(i), path);
      if (f != null) {
        b.onRequest(i + 1, f);
      }
    }
    return b.build();
  }

  private Fault fault(Step s, String path) {
    if (s.kind() == null) {
      return null;
    }
    switch (s.kind()) {
      case REFUSE: return Fault.refuse();
      case ANSWER_BEFORE_HANDLING: return Fault.answer(s.status());
      case INFORMATIONAL: return Fault.informational(s.status());
      case REDIRECT: return Fault.redirect(s.status(),
          s.foreign() ? foreign.url(path).toString() : path + "/v2");
      case AUTH_ON_RETRY: return Fault.authOnRetry(s.status());
      case HANDLER_ERROR: return Fault.handlerError(s.status());
      case LATE_ORIGINAL: return Fault.lateOriginal();
      case DROP_AFTER_COMMIT: return Fault.dropAfterCommit();
      case STALL_AFTER_COMMIT: return Fault.stallAfterCommit();
      case TRUNCATE_BODY: return Fault.truncateBody();
      case GATEWAY_AFTER_COMMIT: return Fault.gatewayAfterCommit(s.status());
      case SEE_OTHER_AFTER_COMMIT: return Fault.seeOtherAfterCommit();
      case LOST_RECORD: return Fault.lostRecord();
      case LOST_FINGERPRINT: return Fault.lostFingerprint();
      default: throw new IllegalArgumentException("no fault for " + s);
    }
  }

  /** Waits (at most 2 s) until the server has seen a request, or {@code drive} has ended. */
  void awaitFirstRequest(CompletableFuture<?> drive) {
    try {
      CompletableFuture.anyOf(firstRequest, drive).get(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // The drive failed, or nothing came in time: the caller judges what the server saw.
    }
  }

  /**
   * Waits (at most 2 s) until the server has answered every request it received and none arrived
   * for 50 ms. Before the simulated clock jumps a day, a request a client gave up on must not still
   * be on its way: a real server handles it within seconds, never after its key retention.
   */
  void awaitQuiet(IdempotentServer kit) {
    long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    try {
      // The sockets count a request a moment before the kit sees it: quiet until both agree.
      while (kit.awaitQuiet(Duration.ofMillis(50), Duration.ofNanos(end - System.nanoTime()))
          && api.getRequestCount() + foreign.getRequestCount() > kit.requestCount()
          && System.nanoTime() < end) {
        continue;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The client dialect of the first run: Stripe's for a Stripe server, else IETF's. */
  static Dialect firstDialect(AnswerCase c) {
    return c.server().mismatch() == AnswerCase.Mismatch.STRIPE_400
        ? Dialects.stripe() : Dialects.ietf();
  }

  /** The client dialect of a resume: the other one when the case says so. */
  static Dialect resumeDialect(AnswerCase c) {
    boolean stripeFirst = c.server().mismatch() == AnswerCase.Mismatch.STRIPE_400;
    return stripeFirst != c.otherDialectOnResume() ? Dialects.stripe() : Dialects.ietf();
  }

  private static MismatchAnswer mismatch(AnswerCase.Mismatch m) {
    switch (m) {
      case CONFLICT_409: return MismatchAnswer.status(409);
      case EXPECTATION_417: return MismatchAnswer.status(417);
      case STRIPE_400: return MismatchAnswer.stripe();
      default: return MismatchAnswer.ietf();
    }
  }

  @Override
  public void close() throws IOException {
    api.close();
    foreign.close();
  }
}
