package dev.oncely.client.property;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.HeaderProvider;
import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.client.NetworkGate;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.Sleeper;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.property.AnswerCase.Crash;
import dev.oncely.client.property.AnswerCase.Twist;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.testing.GzipRequestInterceptor;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.testing.IdempotentServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.Deflater;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import okhttp3.OkHttpClient;

/**
 * Model-based property test of the intent API: generated server behaviours and answer
 * sequences against {@link IdempotentClient}, with crashes and resumes on the same store, and the
 * app's credentials ({@link AppCredentials}): a token the server refuses until the app's {@link
 * HeaderProvider} refreshes it, kept by one token store across restarts; and the spec's body
 * coding ({@link BodyCoding}: as it is, gzipped, or in a coding the SDK does not decode). After
 * every case: at most one effect per intent; {@code Completed} only with an effect; {@code
 * Rejected}/{@code KeyConflict} only without one; no credential at a foreign origin; every outcome
 * carries a reason; a {@code 401} the app's refresh answers never ends an intent; every submit
 * carries the bytes and {@code Content-Encoding} it was first sent with. Cases per run: {@code
 * -Doncely.property.tries} (default 1000).
 */
class IntentApiPropertyTest {
  private static final Survey SURVEY = new Survey("intent-api");
  /** A network that stays down: drives wait for it (and resume gives up) without sending. */
  private static final NetworkGate OFFLINE = new NetworkGate() {
    @Override
    public boolean isOpen() {
      return false;
    }

    @Override
    public void whenOpen(Runnable action) {
      // never: this network does not come back while the client runs
    }
  };
  private static OkHttpClient http;

  @BeforeContainer
  static void startClient() {
    http = new OkHttpClient.Builder().build();
  }

  @AfterContainer
  static void stopClient() {
    if (Survey.ON) {
      SURVEY.write();
    }
    http.dispatcher().executorService().shutdownNow();
    http.connectionPool().evictAll();
  }

  @Provide
  Arbitrary<AnswerCase> cases() {
    return AnswerCases.cases();
  }

  @Provide
  Arbitrary<AppCredentials.Start> credentials() {
    return AppCredentials.starts();
  }

  /**
   * How the spec's body is coded: as it is, gzipped ({@code Content-Encoding: gzip}, at another
   * level when the spec is built again), or in a coding the SDK does not decode.
   */
  enum BodyCoding { NONE, GZIP, OPAQUE }

  @Provide
  Arbitrary<BodyCoding> codings() {
    return Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(BodyCoding.NONE)),
        Tuple.of(3, Arbitraries.just(BodyCoding.GZIP)),
        Tuple.of(1, Arbitraries.just(BodyCoding.OPAQUE)));
  }

  @Property
  void intent_api_never_double_charges_never_lies_and_never_leaks_credentials(
      @ForAll("cases") AnswerCase c, @ForAll("credentials") AppCredentials.Start start,
      @ForAll("codings") BodyCoding coding) throws Exception {
    // Fresh servers per case: a late request of an earlier case cannot reach this case's server.
    try (SimulatedWorld world = new SimulatedWorld()) {
      check(c, new AppCredentials(start), coding, world);
    }
  }

  private void check(AnswerCase c, AppCredentials credentials, BodyCoding coding,
      SimulatedWorld world) throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));
    IdempotentServer server = world.serve(c, clock, SimulatedWorld.PAYMENTS,
        b -> b.requireCredential(SimulatedWorld.CREDENTIAL, AppCredentials::accepted));
    Promises promises = new Promises(server, SimulatedWorld.INTENT);
    InMemoryIntentStore store = new InMemoryIntentStore();
    RecordingSleeper sleeper = new RecordingSleeper(clock);
    Dialect dialect = SimulatedWorld.firstDialect(c);
    Dialect resumeDialect = SimulatedWorld.resumeDialect(c);
    boolean otherResumes = c.twist() == Twist.OTHER_ENTRY_POINT_RESUMES && c.crash() != Crash.NONE;
    IntentSpec spec = spec(world, otherResumes, coding, 0);

    AtomicReference<IdempotentClient> current = new AtomicReference<>();
    AtomicReference<CompletableFuture<IntentOutcome>> concurrent = new AtomicReference<>();
    IntentListener listener = IntentListener.NONE;
    IntentStore firstStore = store;
    if (c.twist() == Twist.CONCURRENT_SUBMIT) {
      // The gap after the create: the record exists, the first drive has not started yet. The
      // listener holds the first drive there until the second submit has reached the store.
      CountDownLatch creates = new CountDownLatch(2);
      firstStore = new ForwardingIntentStore(store) {
        @Override
        public void create(IntentRecord record) {
          try {
            super.create(record);
          } finally {
            creates.countDown();
          }
        }
      };
      listener = event -> {
        if (event instanceof IntentEvent.Recorded && concurrent.get() == null) {
          concurrent.set(current.get().submit(spec(world, otherResumes, coding, 1)));
          awaitQuietly(creates);
        }
      };
    }
    boolean closeWhileWaiting = c.crash() == Crash.CLOSE_WHILE_WAITING;
    IdempotentClient first = client(firstStore, clock, closeWhileWaiting ? Sleeper.SYSTEM : sleeper,
        dialect, c.firstRunAttempts(), NetworkGate.ALWAYS_OPEN, provider(c.twist(), credentials),
        listener);
    current.set(first);
    IntentOutcome outcome;
    boolean closeAfterSubmit = c.crash() == Crash.CLOSE_RIGHT_AFTER_SUBMIT
        || c.crash() == Crash.OFFLINE_RESUME_THEN_NEXT_DAY;
    try {
      if (closeAfterSubmit) {
        CompletableFuture<IntentOutcome> f = first.submit(spec);
        first.close();
        outcome = await(f, promises, "the future of submit() after close()");
      } else if (closeWhileWaiting) {
        CompletableFuture<IntentOutcome> f = first.submit(spec);
        world.awaitFirstRequest(f);
        first.close();
        int seen = server.requestCount();
        outcome = await(f, promises, "the future of submit() after close() during its drive");
        judge("closed during its drive", outcome, credentials, promises);
        world.awaitQuiet(server);
        // One attempt may have been on its way when close() returned; none may start after it.
        if (server.requestCount() > seen + 1) {
          promises.fail(Promises.REASON, "an attempt started after close() returned");
        }
      } else {
        outcome = first.execute(spec);
        judge("first run", outcome, credentials, promises);
      }
      if (concurrent.get() != null) {
        judge("the concurrent submit", await(concurrent.get(), promises, "the concurrent submit"),
            credentials, promises);
      }
    } finally {
      first.close();
    }
    if (c.crash() == Crash.OFFLINE_RESUME_THEN_NEXT_DAY) {
      outcome = resume(store, clock, sleeper, resumeDialect, OFFLINE, spec, outcome, credentials,
          promises, "offline resume");
    }
    if (c.crash() == Crash.RESUME_NEXT_DAY || c.crash() == Crash.OFFLINE_RESUME_THEN_NEXT_DAY) {
      world.awaitQuiet(server);
      clock.advance(Duration.ofHours(25));
    }
    if (otherResumes) {
      outcome = resumeThroughInterceptor(store, clock, sleeper, resumeDialect, outcome,
          credentials, promises);
    } else if (c.crash() != Crash.NONE) {
      outcome = resume(store, clock, sleeper, resumeDialect, NetworkGate.ALWAYS_OPEN, spec,
          outcome, credentials, promises, "after resume");
    }
    promises.atMostOneEffect();
    promises.everySubmitAsFirstSent();
    promises.noCredentialAt(world.foreignOrigin(), SimulatedWorld.CREDENTIAL);

    String details = String.format("coding: %s%n    credentials: %s%n    final outcome: %s%n    requests: %s%n"
        + "    answers: %s%n    effects: %s", coding, credentials, outcome,
        server.requests().all(),
        server.answers(), server.ledger().all());
    if (Survey.ON) {
      SURVEY.record(c, promises, details);
      return;
    }
    assertThat(promises.broken()).as("%s%n%s", c, details).isEmpty();
  }

  /**
   * The intent, built for the {@code build}-th time (a gzipped body is compressed at another
   * level each time); with volatile fields when another entry point is to resume it and the SDK
   * can read the body.
   */
  private static IntentSpec spec(SimulatedWorld world, boolean volatileFields,
      BodyCoding coding, int build) {
    IntentSpec.Builder spec = IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(world.paymentsUrl().toString()).businessId(SimulatedWorld.INTENT);
    boolean withSentAt = volatileFields && coding != BodyCoding.OPAQUE;
    byte[] json = (withSentAt ? SimulatedWorld.BODY_WITH_SENT_AT : SimulatedWorld.BODY)
        .getBytes(StandardCharsets.UTF_8);
    switch (coding) {
      case GZIP:
        spec.body(GzipRequestInterceptor.gzip(json, build % 2 == 0
            ? Deflater.DEFAULT_COMPRESSION : Deflater.NO_COMPRESSION), "application/json")
            .header("Content-Encoding", "gzip");
        break;
      case OPAQUE:
        byte[] opaque = new byte[json.length + 1];
        opaque[0] = (byte) 0x8b;
        System.arraycopy(json, 0, opaque, 1, json.length);
        spec.body(opaque, "application/json").header("Content-Encoding", "br");
        break;
      default:
        spec.jsonBody(json);
    }
    return withSentAt ? spec.volatileFields("sentAt").build() : spec.build();
  }

  /** What the app learns from {@code outcome}, judged against the server and its credentials. */
  private static void judge(String phase, IntentOutcome outcome, AppCredentials credentials,
      Promises promises) {
    promises.truthful(phase, outcome);
    promises.notEndedByAnswered401(phase, credentials, outcome);
  }

  /**
   * The first client's header provider: the app's credentials, after a first call that fails as
   * the twist says.
   */
  private static HeaderProvider provider(Twist twist, AppCredentials credentials) {
    HeaderProvider app = credentials.headerProvider();
    if (twist != Twist.PROVIDER_THROWS && twist != Twist.PROVIDER_REFUSED_VALUE) {
      return app;
    }
    AtomicBoolean first = new AtomicBoolean(true);
    return new HeaderProvider() {
      @Override
      public Map<String, String> headersFor(IntentId id, String url) throws Exception {
        return headersFor(id, new Target(url, false, false));
      }

      @Override
      public Map<String, String> headersFor(IntentId id, Target target) throws Exception {
        if (first.getAndSet(false)) {
          if (twist == Twist.PROVIDER_THROWS) {
            throw new IllegalStateException("the token service is down");
          }
          return Map.of(SimulatedWorld.CREDENTIAL, credentials.current() + "\n");
        }
        return app.headersFor(id, target);
      }
    };
  }

  /** A restart whose app resumes through the interceptor on its own OkHttp client. */
  private static IntentOutcome resumeThroughInterceptor(InMemoryIntentStore store,
      ManualClock clock, RecordingSleeper sleeper, Dialect dialect, IntentOutcome before,
      AppCredentials credentials, Promises promises) throws Exception {
    IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder().store(store)
        .clock(clock).sleeper(sleeper).dialect(dialect).listener(IntentListener.NONE)
        .keyRetention(SimulatedWorld.KEY_RETENTION).retryPolicy(policy(6, Duration.ofMinutes(2)))
        .build();
    OkHttpClient app = interceptor.installOn(http.newBuilder()
        .authenticator(credentials.authenticator())
        .addInterceptor(chain -> chain.request().header(SimulatedWorld.CREDENTIAL) != null
            ? chain.proceed(chain.request())
            : chain.proceed(chain.request().newBuilder()
                .header(SimulatedWorld.CREDENTIAL, credentials.current()).build()))).build();
    IntentOutcome outcome = before;
    for (CompletableFuture<IntentOutcome> f : interceptor.resumePending(app, o -> { })) {
      outcome = await(f, promises, "a future of the interceptor's resumePending()");
    }
    judge("after the interceptor's resume", outcome, credentials, promises);
    return outcome;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static IntentOutcome resume(InMemoryIntentStore store, ManualClock clock,
      RecordingSleeper sleeper, Dialect dialect, NetworkGate gate, IntentSpec spec,
      IntentOutcome before, AppCredentials credentials, Promises promises, String phase)
      throws Exception {
    IntentOutcome outcome = before;
    try (IdempotentClient next = client(store, clock, sleeper, dialect, 6, gate,
        credentials.headerProvider(), IntentListener.NONE)) {
      List<CompletableFuture<IntentOutcome>> resumed = next.resumePending();
      for (CompletableFuture<IntentOutcome> f : resumed) {
        outcome = await(f, promises, "a future of resumePending() (" + phase + ")");
      }
      if (resumed.isEmpty()) {
        outcome = next.outcomeOf(spec.id()).orElse(outcome);
      }
    }
    judge(phase, outcome, credentials, promises);
    return outcome;
  }

  private static IntentOutcome await(CompletableFuture<IntentOutcome> f, Promises promises,
      String what) throws Exception {
    try {
      return f.get(2, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      promises.fail(Promises.REASON, what + " did not complete within 2 s");
      return null;
    }
  }

  private static IdempotentClient client(IntentStore store, ManualClock clock,
      Sleeper sleeper, Dialect dialect, int attempts, NetworkGate gate,
      HeaderProvider credentials, IntentListener listener) {
    // Waiting for a closed gate takes real time up to the deadline: offline clients give up soon.
    Duration deadline = gate == OFFLINE ? Duration.ofMillis(50) : Duration.ofMinutes(2);
    return IdempotentClient.builder()
        .okHttpClient(http)
        .store(store)
        .clock(clock)
        .sleeper(sleeper)
        .dialect(dialect)
        .headerProvider(credentials)
        .networkGate(gate)
        .keyRetention(SimulatedWorld.KEY_RETENTION)
        .listener(listener)
        .retryPolicy(policy(attempts, deadline))
        .build();
  }

  private static RetryPolicy policy(int attempts, Duration deadline) {
    return RetryPolicy.builder()
        .maxAttempts(attempts)
        .baseDelay(Duration.ofMillis(100))
        .maxDelay(Duration.ofSeconds(5))
        .deadline(deadline)
        .attemptTimeout(Duration.ofMillis(100))
        .build();
  }
}
