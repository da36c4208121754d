package dev.oncely.client.property;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.BodyTooLargeException;
import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentTag;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.Sleeper;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.property.AnswerCase.Crash;
import dev.oncely.client.property.AnswerCase.Twist;
import dev.oncely.client.testing.GzipRequestInterceptor;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.testing.IdempotentServer;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.Deflater;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * The generator of {@link IntentApiPropertyTest} against {@link IdempotencyInterceptor} with a
 * store, in a plain OkHttp client configured as an app would (redirects followed, an application
 * interceptor adding the app's current {@code Authorization}, the app's {@code Authenticator} when
 * the case draws one), plus what only such a client builds ({@link ShapedCase}): every request
 * shape ({@link RequestShape}) and a token the server refuses until the app refreshes it ({@link
 * AppCredentials}). Without a crash the call is a plain untagged call, judged by the status the
 * app gets. With a crash it is a durable intent ({@link IntentTag}): its stored record is judged
 * after the call, then a new interceptor and client on the same store (25 hours later for the
 * next-day plans) re-issue the call if the case says so, run {@link
 * IdempotencyInterceptor#resumePending}, and each outcome is judged, the record once more at the
 * end. Invariants: at most one effect; done (2xx except 202, {@code COMPLETED}) only with an
 * effect; refused (a refusing 4xx, {@code REJECTED}, {@code KEY_CONFLICT}) only without one; no
 * credential at a foreign origin; every record left unfinished carries a reason; every request
 * with an intent's key on the wire is an attempt its record counts; every submit of an intent
 * carries the bytes and {@code Content-Encoding} it was first sent with (a body the app gzips is
 * compressed at another level after the restart); a {@code 401} the app's refresh answers never
 * ends an intent; a body the SDK cannot hold (duplex, a stream past the limit) is refused with its
 * typed cause, nothing stored, nothing sent. Cases per run: {@code
 * -Doncely.property.tries} (default 1000).
 */
class InterceptorPropertyTest {
  private static final MediaType JSON = MediaType.get("application/json");
  private static final String OPERATION = "create-payment";
  private static final String SCOPE = "tenant-a";
  private static final Survey SURVEY = new Survey("interceptor");
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
  Arbitrary<ShapedCase> cases() {
    return ShapedCase.cases();
  }

  @Property
  void interceptor_never_double_charges_never_lies_and_never_leaks_credentials(
      @ForAll("cases") ShapedCase c) throws IOException {
    // Fresh servers per case: a late request of an earlier case cannot reach this case's server.
    try (SimulatedWorld world = new SimulatedWorld()) {
      check(c, world);
    }
  }

  private void check(ShapedCase shaped, SimulatedWorld world) {
    AnswerCase c = shaped.answers();
    ManualClock clock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));
    if (shaped.pooled()) {
      world.warmConnection(http);
    }
    IdempotentServer server = world.serve(c, clock, shaped.shape().path(),
        b -> b.requireCredential(SimulatedWorld.CREDENTIAL, AppCredentials::accepted));
    Promises promises = new Promises(server, SimulatedWorld.INTENT);
    InMemoryIntentStore store = new InMemoryIntentStore();
    RecordingSleeper sleeper = new RecordingSleeper(clock);
    Dialect dialect = SimulatedWorld.firstDialect(c);
    boolean durable = c.crash() != Crash.NONE;
    App shape = new App(shaped.shape(), new AppCredentials(shaped.credentials()));

    boolean closeWhileWaiting = c.crash() == Crash.CLOSE_WHILE_WAITING;
    IdempotencyInterceptor first = interceptor(promises, store, clock,
        closeWhileWaiting ? Sleeper.SYSTEM : sleeper, dialect, c.firstRunAttempts());
    OkHttpClient app = client(first, c.twist(), shape.credentials(), shape.compression(false));
    String appKey = null;
    if (!durable && c.twist() == Twist.SECOND_SCOPE) {
      appKey = "evt-1";
      otherAccountFirst(world, app, appKey);
    }
    if (shape.shape().refused()) {
      refusedBeforeAnything(world, server, store, app, durable, shape, promises);
      finish(shaped, server, store, promises, "refused", world);
      return;
    }
    String last = closeWhileWaiting
        ? callAndClose(world, server, store, app, first, shape, promises)
        : call(world, store, app, durable, appKey, shape, promises, "first call");
    // On a loaded machine close() can land before the call was admitted: it is then refused with
    // nothing stored and nothing sent, which is the truth, so there is no record to judge.
    boolean refusedBeforeAdmission = closeWhileWaiting && server.requestCount() == 0
        && store.findByBusinessId(SCOPE, OPERATION, SimulatedWorld.INTENT).isEmpty();
    if (durable && !refusedBeforeAdmission) {
      judgeRecord(store, promises, "first call");
      if (c.crash() == Crash.RESUME_NEXT_DAY || c.crash() == Crash.OFFLINE_RESUME_THEN_NEXT_DAY) {
        world.awaitQuiet(server);
        clock.advance(Duration.ofHours(25));
      }
      if (c.twist() == Twist.OTHER_ENTRY_POINT_RESUMES) {
        last = resumeThroughIntentApi(store, clock, sleeper, SimulatedWorld.resumeDialect(c),
            shape, promises);
      }
      IdempotencyInterceptor restarted = interceptor(promises, store, clock, sleeper,
          SimulatedWorld.resumeDialect(c), 6);
      OkHttpClient restartedApp = client(restarted, Twist.NONE, shape.credentials(),
          shape.compression(true));
      if (shaped.reissue()) {
        last = call(world, store, restartedApp, true, null, shape, promises, "re-issued call");
      }
      for (CompletableFuture<IntentOutcome> f
          : restarted.resumePending(restartedApp, outcome -> { })) {
        try {
          IntentOutcome outcome = f.get(5, TimeUnit.SECONDS);
          promises.truthful("after resume", outcome);
          promises.notEndedByAnswered401("after resume", shape.credentials(), outcome);
          last = "resumed: " + outcome;
        } catch (TimeoutException e) {
          promises.fail(Promises.REASON, "a future of resumePending() did not complete in 5 s");
        } catch (InterruptedException | ExecutionException e) {
          promises.fail(Promises.REASON, "a future of resumePending() failed: " + e);
        }
      }
      if (!refusedBeforeAdmission) {
        judgeRecord(store, promises, "at the end");
      }
    }
    finish(shaped, server, store, promises, last, world);
  }

  /** The promises every case keeps at its end, then the verdict. */
  private static void finish(ShapedCase c, IdempotentServer server, InMemoryIntentStore store,
      Promises promises, String last, SimulatedWorld world) {
    for (IntentRecord r : store.listUnfinished()) {
      if (r.reason() == null || r.reason().isBlank()) {
        promises.fail(Promises.REASON, "unfinished record " + r.state() + " without a reason");
      }
    }
    promises.everyRequestCounted(records(store));
    promises.everyRequestAnAttemptEvent(records(store));
    promises.everySubmitAsFirstSent();
    promises.atMostOneEffect();
    promises.noCredentialAt(world.foreignOrigin(), SimulatedWorld.CREDENTIAL);

    String details = String.format("case: %s%n    last result: %s%n    requests: %s%n"
        + "    answers: %s%n    effects: %s%n    records: %s", c, last, server.requests().all(),
        server.answers(), server.ledger().all(), records(store));
    if (Survey.ON) {
      SURVEY.record(c.answers(), promises, details);
      return;
    }
    assertThat(promises.broken()).as("%s%n%s", c, details).isEmpty();
  }

  private static List<IntentRecord> records(InMemoryIntentStore store) {
    List<IntentRecord> all = new ArrayList<>(store.listUnfinished());
    store.forEachFinished(all::add);
    return all;
  }

  /**
   * A duplex body or a stream past the limit: the call fails with {@link IntentIOException}
   * caused by the shape's typed refusal, and nothing of the intent is stored or sent.
   */
  private static void refusedBeforeAnything(SimulatedWorld world, IdempotentServer server,
      InMemoryIntentStore store, OkHttpClient app, boolean durable, App shape, Promises promises) {
    int recordsBefore = records(store).size();
    Request request = shape.request(world, durable, null);
    try (Response response = app.newCall(request).execute()) {
      promises.fail(Promises.REFUSED_BODY, shape.shape() + ": the app got " + response.code());
    } catch (IOException e) {
      Throwable cause = e.getCause();
      boolean typed = e instanceof IntentIOException && shape.shape().refusal().isInstance(cause)
          && (shape.shape() != RequestShape.DUPLEX || !(cause instanceof BodyTooLargeException));
      if (!typed) {
        promises.fail(Promises.REFUSED_BODY, shape.shape() + ": the app got " + e);
      }
    }
    long sent = server.requests().all().stream()
        .filter(r -> SimulatedWorld.INTENT.equals(SimulatedWorld.intentOf(r))).count();
    if (sent > 0 || records(store).size() != recordsBefore) {
      promises.fail(Promises.REFUSED_BODY, shape.shape() + ": " + sent + " requests sent, "
          + (records(store).size() - recordsBefore) + " records stored");
    }
  }

  /** The stored record of the durable intent says something the server's ledger agrees with. */
  private static void judgeRecord(InMemoryIntentStore store, Promises promises, String phase) {
    Optional<IntentRecord> record = store.findByBusinessId(SCOPE, OPERATION, SimulatedWorld.INTENT);
    if (record.isEmpty()) {
      promises.fail(Promises.REASON, phase + ": the durable intent has no record");
      return;
    }
    promises.truthfulRecord(phase, record.get());
  }

  /** The app's request shape and credentials, and the requests it builds with them. */
  private record App(RequestShape shape, AppCredentials credentials) {
    /**
     * OkHttp's gzip recipe for a shape the app compresses, else null; after a restart ({@code
     * upgraded}) at another level, so a re-issued call builds other bytes for the same JSON.
     */
    Interceptor compression(boolean upgraded) {
      return !shape.compressedByApp() ? null : new GzipRequestInterceptor(upgraded
          ? Deflater.NO_COMPRESSION : Deflater.DEFAULT_COMPRESSION);
    }

    /** A new request of the shape, tagged when durable, with the app's own key if it sets one. */
    Request request(SimulatedWorld world, boolean durable, String appKey) {
      Request.Builder request = shape.request(world.apiUrl());
      if (appKey != null) {
        request.header("Idempotency-Key", "\"" + appKey + "\"");
      }
      if (durable) {
        request.tag(IntentTag.class, IntentTag.builder().operation(OPERATION).scope(SCOPE)
            .businessId(SimulatedWorld.INTENT).build());
      }
      return request.build();
    }
  }

  /**
   * Runs the call on another thread and closes the interceptor as soon as the server has seen its
   * first request: no attempt may start after {@code close()} returns.
   */
  private static String callAndClose(SimulatedWorld world, IdempotentServer server,
      InMemoryIntentStore store, OkHttpClient app, IdempotencyInterceptor interceptor, App shape,
      Promises promises) {
    CompletableFuture<String> call = CompletableFuture.supplyAsync(
        () -> call(world, store, app, true, null, shape, promises,
            "call closed during its drive"));
    world.awaitFirstRequest(call);
    interceptor.close();
    int seen = server.requestCount();
    String last;
    try {
      last = call.get(5, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      promises.fail(Promises.REASON, "a call did not end within 5 s of close()");
      return "call did not end";
    } catch (InterruptedException | ExecutionException e) {
      promises.fail(Promises.REASON, "the call failed: " + e);
      return "call failed";
    }
    world.awaitQuiet(server);
    // One attempt may have been on its way when close() returned; none may start after it.
    if (server.requestCount() > seen + 1) {
      promises.fail(Promises.REASON, "an attempt started after close() returned");
    }
    return last;
  }

  /** Runs the call; returns null if its answer is final for the app, else what was unknown. */
  private static String call(SimulatedWorld world, InMemoryIntentStore store, OkHttpClient client,
      boolean durable, String appKey, App shape, Promises promises, String phase) {
    try (Response response = client.newCall(shape.request(world, durable, appKey)).execute()) {
      int status = response.code();
      if (appKey != null && response.header(IdempotencyInterceptor.STORED_RESPONSE_HEADER) != null) {
        promises.fail(Promises.NO_CROSS_SCOPE, phase + ": answered from another account's record");
      }
      String stored = store.listUnfinished().stream().map(r -> r.state().toString())
          .reduce((a, b) -> a + "," + b).orElse(null);
      promises.truthfulResponse(phase, status, stored);
      promises.notEndedByAnswered401(phase, shape.credentials(), status);
      boolean unknown = status == 202 || status == 408 || status == 409 || status == 425
          || status == 429 || status >= 500 || status < 200 || (status >= 300 && status < 400);
      return unknown ? phase + " answered " + status : null;
    } catch (IOException e) {
      return phase + " failed: " + e;
    }
  }

  /**
   * The app's client as an app builds it (redirects followed, silent retries on): an outer retry
   * interceptor if the twist says so, the app's credential, its body compression if any, Oncely,
   * and an interceptor inside that cancels the call after its first request went out if the
   * twist says so.
   */
  private static OkHttpClient client(IdempotencyInterceptor idempotency, Twist twist,
      AppCredentials credentials, Interceptor compression) {
    OkHttpClient.Builder app = http.newBuilder().authenticator(credentials.authenticator());
    if (twist == Twist.OUTER_RETRY) {
      app.addInterceptor(chain -> {
        try {
          return chain.proceed(chain.request());
        } catch (IOException first) {
          return chain.proceed(chain.request());
        }
      });
    }
    app.addInterceptor(chain -> chain.request().header(SimulatedWorld.CREDENTIAL) != null
        ? chain.proceed(chain.request())
        : chain.proceed(chain.request().newBuilder()
            .header(SimulatedWorld.CREDENTIAL, credentials.current()).build()));
    if (compression != null) {
      app.addInterceptor(compression);
    }
    idempotency.installOn(app);
    if (twist == Twist.CANCEL_AFTER_WRITE) {
      AtomicBoolean canceled = new AtomicBoolean();
      app.addInterceptor(chain -> {
        Response response = chain.proceed(chain.request());
        if (!canceled.getAndSet(true)) {
          response.close();
          chain.call().cancel();
          throw new IOException("Canceled");
        }
        return response;
      });
    }
    return app.build();
  }

  /** Another account sends the same app-set key first, for an order of its own. */
  private static void otherAccountFirst(SimulatedWorld world, OkHttpClient app, String appKey) {
    Request other = new Request.Builder().url(world.paymentsUrl())
        .header(SimulatedWorld.CREDENTIAL, "Bearer other-account")
        .header("Idempotency-Key", "\"" + appKey + "\"")
        .post(RequestBody.create("{\"order\":\"order-0\",\"amount\":5}", JSON)).build();
    try (Response response = app.newCall(other).execute()) {
      response.body().bytes();
    } catch (IOException e) {
      // Whatever the other account got, the intent's own call is judged next.
    }
  }

  /** A restart whose app resumes the interceptor's record with the intent API. */
  private static String resumeThroughIntentApi(InMemoryIntentStore store, ManualClock clock,
      RecordingSleeper sleeper, Dialect dialect, App shape, Promises promises) {
    String last = null;
    try (IdempotentClient client = IdempotentClient.builder().okHttpClient(http).store(store)
        .clock(clock).sleeper(sleeper).dialect(dialect).listener(promises.attemptEvents)
        .keyRetention(SimulatedWorld.KEY_RETENTION)
        .headerProvider(shape.credentials().headerProvider())
        .retryPolicy(policy(6)).build()) {
      for (CompletableFuture<IntentOutcome> f : client.resumePending()) {
        try {
          IntentOutcome outcome = f.get(5, TimeUnit.SECONDS);
          promises.truthful("after the intent API's resume", outcome);
          promises.notEndedByAnswered401("after the intent API's resume", shape.credentials(),
              outcome);
          last = "resumed by the intent API: " + outcome;
        } catch (TimeoutException | InterruptedException | ExecutionException e) {
          promises.fail(Promises.REASON, "a future of the intent API's resume failed: " + e);
        }
      }
    }
    return last;
  }

  private static IdempotencyInterceptor interceptor(Promises promises, InMemoryIntentStore store,
      ManualClock clock, Sleeper sleeper, Dialect dialect, int attempts) {
    return IdempotencyInterceptor.builder()
        .store(store)
        .clock(clock)
        .sleeper(sleeper)
        .dialect(dialect)
        .listener(promises.attemptEvents)
        .keyRetention(SimulatedWorld.KEY_RETENTION)
        .retryPolicy(policy(attempts))
        .methods("POST", "PATCH", "DELETE")
        .maxBodyBytes(RequestShape.MAX_BODY_BYTES)
        .build();
  }

  private static RetryPolicy policy(int attempts) {
    return RetryPolicy.builder()
        .maxAttempts(attempts)
        .baseDelay(Duration.ofMillis(100))
        .maxDelay(Duration.ofSeconds(5))
        .deadline(Duration.ofMinutes(2))
        .attemptTimeout(Duration.ofMillis(100))
        .build();
  }
}
