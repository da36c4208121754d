package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.dialect.Verdict;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.internal.drive.AnswerPolicy;
import dev.oncely.client.internal.http.ResumeDrives;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import dev.oncely.client.testing.WatchedStore;
import dev.oncely.testing.Fault;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every way a drive can end {@code PENDING}, through each entry point it applies to, reports the
 * {@link PendingReason} whose javadoc describes what happened: the reason the caller gets, the one
 * an operator reads back from the store (and so the CLI and the metrics' {@code reason} tag, which
 * print the stored name), and the one the {@code GaveUpUnknown} event carries all agree, and each
 * row checks the situation against the words of that reason's javadoc (the last answer, what the
 * server received, what the record holds). A reason the store keeps survives the record codec.
 */
class PendingReasonsMeanWhatTheySayTest {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  private static final MediaType JSON = MediaType.get("application/json");
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";
  private static final IntentTag TAG = IntentTag.builder().operation("create-payment")
      .scope("tenant-a").businessId("order-1").build();
  private static final Set<Via> BOTH = EnumSet.allOf(Via.class);

  /** The two entry points. */
  enum Via { INTENT_API, INTERCEPTOR }

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ManualClock clock = new ManualClock(T0);
  private final WatchedStore store = new WatchedStore(new InMemoryIntentStore());
  private final List<IntentEvent> events = new CopyOnWriteArrayList<>();

  /**
   * What a way of ending pending left behind: the pending outcomes the entry point reported (the
   * intent API's outcome; the interceptor's exception, if it threw one, and the stored outcome an
   * app or operator reads afterwards), the record as stored, and the requests the server got.
   */
  record Seen(List<IntentOutcome.Pending> outcomes, IntentRecord record, int requests,
      List<IntentEvent> events) {
    IntentOutcome.Pending outcome() {
      return outcomes.get(0);
    }

    int lastStatus() {
      return record.lastResponse() == null ? -1 : record.lastResponse().status();
    }

    boolean answered(Class<? extends IntentEvent> type) {
      return events.stream().anyMatch(type::isInstance);
    }
  }

  /** Drives one way of ending pending through one entry point. */
  interface Scenario {
    Seen run(PendingReasonsMeanWhatTheySayTest test, Via via) throws Exception;
  }

  /** Checks {@link Seen} against the reason's documented meaning. */
  interface Meaning {
    void check(Seen seen, Via via);
  }

  /**
   * One row: a way a drive ends pending, the reason it must report, the entry points it applies
   * to, and whether the store keeps that reason in the record's reason text.
   */
  record Way(String name, PendingReason reason, Set<Via> through, boolean stored,
      Scenario scenario, Meaning meaning) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Way> table() {
    return List.of(
        new Way("409 in progress until the deadline", PendingReason.KEY_IN_USE, BOTH, true,
            (t, via) -> t.inProgressAnswers(via, policy(100, Duration.ofSeconds(5))),
            (seen, via) -> {
              assertThat(seen.lastStatus()).as("the server said a request with this key is in"
                  + " progress (409)").isEqualTo(409);
              assertThat(seen.answered(IntentEvent.Accepted.class))
                  .as("it never said it accepted this request").isFalse();
              assertThat(seen.record().attempts()).as("the deadline ran out, not the attempts")
                  .isLessThan(100);
            }),
        new Way("409 in progress until the attempts run out", PendingReason.KEY_IN_USE, BOTH, true,
            (t, via) -> t.inProgressAnswers(via, policy(3, Duration.ofMinutes(5))),
            (seen, via) -> {
              assertThat(seen.lastStatus()).isEqualTo(409);
              assertThat(seen.requests()).as("every attempt the policy allows").isEqualTo(3);
              assertThat(seen.answered(IntentEvent.Accepted.class)).isFalse();
            }),
        new Way("202 with a status URL that keeps answering 202, until the deadline",
            PendingReason.STILL_PROCESSING, BOTH, true,
            (t, via) -> t.acceptedAndStillProcessing(via, policy(100, Duration.ofSeconds(5))),
            (seen, via) -> {
              assertThat(seen.answered(IntentEvent.Accepted.class))
                  .as("the server accepted the intent (202)").isTrue();
              assertThat(seen.lastStatus()).as("and had not reported it done").isEqualTo(202);
              assertThat(seen.record().pollUrl()).as("the status URL it named").endsWith("/op_1");
            }),
        new Way("202 with a status URL that keeps answering 202, until the attempts run out",
            PendingReason.STILL_PROCESSING, BOTH, true,
            (t, via) -> t.acceptedAndStillProcessing(via, policy(3, Duration.ofMinutes(5))),
            (seen, via) -> {
              assertThat(seen.answered(IntentEvent.Accepted.class)).isTrue();
              assertThat(seen.lastStatus()).isEqualTo(202);
              assertThat(seen.requests()).isEqualTo(3);
            }),
        new Way("503 on every attempt", PendingReason.ATTEMPTS_EXHAUSTED, BOTH, true,
            (t, via) -> {
              t.serve(r -> status(503).build());
              return t.once(via, new Setup(policy(3, Duration.ofMinutes(5))));
            },
            (seen, via) -> {
              assertThat(seen.requests()).as("every attempt the policy allows was used")
                  .isEqualTo(3);
              assertThat(seen.record().attempts()).isEqualTo(3);
            }),
        new Way("a Retry-After longer than the time left", PendingReason.DEADLINE_EXCEEDED, BOTH,
            true,
            (t, via) -> {
              t.serve(r -> status(503).addHeader("Retry-After", "10").build());
              return t.once(via, new Setup(policy(6, Duration.ofSeconds(5))));
            },
            (seen, via) -> {
              assertThat(seen.requests()).as("attempts were left").isEqualTo(1);
              assertThat(Duration.between(seen.record().createdAt(),
                  seen.record().nextAttemptAt())).as("the next wait would pass the deadline")
                  .isGreaterThan(Duration.ofSeconds(5));
            }),
        new Way("a retry budget that cannot pay for a retry", PendingReason.RETRY_BUDGET_EXHAUSTED,
            BOTH, true,
            (t, via) -> {
              t.serve(r -> status(503).build());
              Setup setup = new Setup(policy(6, Duration.ofMinutes(5)));
              setup.budget = RetryBudget.builder().capacity(5).retryCost(5).refillPerSecond(0)
                  .build();
              return t.once(via, setup);
            },
            (seen, via) -> {
              assertThat(seen.requests()).as("no retry storm: the budget paid for one retry")
                  .isEqualTo(2);
              assertThat(seen.record().attempts()).as("the policy had attempts left")
                  .isLessThan(6);
            }),
        new Way("the network gate stays closed", PendingReason.OFFLINE, BOTH, true,
            (t, via) -> {
              t.serve(r -> status(201).build());
              Setup setup = new Setup(policy(6, Duration.ofMillis(200)));
              setup.gate = new NetworkGate() {
                @Override
                public boolean isOpen() {
                  return false;
                }

                @Override
                public void whenOpen(Runnable action) {}
              };
              return t.once(via, setup);
            },
            (seen, via) -> {
              assertThat(seen.requests()).as("offline until the deadline: nothing sent").isZero();
              assertThat(seen.record().attempts()).isZero();
            }),
        new Way("202 without a status URL, resent until the bound", PendingReason.NO_STATUS_URL,
            BOTH, true,
            (t, via) -> {
              t.serve(r -> status(202).build());
              return t.once(via, new Setup(policy(20, Duration.ofMinutes(5))));
            },
            (seen, via) -> {
              assertThat(seen.lastStatus()).as("202 Accepted").isEqualTo(202);
              assertThat(seen.record().lastResponse().header("Location")).isNull();
              assertThat(seen.requests()).as("resends bounded by the dialect")
                  .isEqualTo(Dialects.DEFAULT_MAX_BLIND_RESENDS + 1);
            }),
        new Way("404 after an attempt that may have been delivered",
            PendingReason.AMBIGUOUS_ANSWER, BOTH, true,
            (t, via) -> {
              AtomicInteger n = new AtomicInteger();
              t.serve(r -> n.incrementAndGet() == 1
                  ? Fault.dropAfterCommit().applyTo(status(201)).build() : status(404).build());
              return t.once(via, new Setup(policy(20, Duration.ofMinutes(5))));
            },
            (seen, via) -> {
              assertThat(seen.record().maybeDelivered())
                  .as("an attempt that may have been delivered").isTrue();
              assertThat(seen.lastStatus()).as("a refusal not marked as a replay").isEqualTo(404);
              assertThat(seen.requests()).as("resends with fresh credentials did not settle it")
                  .isGreaterThan(AnswerPolicy.MAX_AMBIGUOUS_RESENDS);
            }),
        new Way("a dialect that throws", PendingReason.UNEXPECTED_FAILURE, BOTH, true,
            (t, via) -> {
              t.serve(r -> status(201).build());
              Setup setup = new Setup(policy(6, Duration.ofMinutes(5)));
              setup.dialect = new ThrowingReplayCheck(Dialects.ietf());
              return t.once(via, setup);
            },
            (seen, via) -> {
              assertThat(seen.record().maybeDelivered())
                  .as("marked maybe delivered: an attempt had started").isTrue();
              if (via == Via.INTENT_API) {
                assertThat(seen.outcome().cause()).as("the cause is attached")
                    .isInstanceOf(IllegalStateException.class);
              }
            }),
        new Way("closed while waiting for the next attempt", PendingReason.INTERRUPTED, BOTH,
            true, (t, via) -> t.whileWaiting(via, false),
            (seen, via) -> {
              assertThat(seen.requests()).as("no attempt leaves after the stop").isEqualTo(1);
              assertThat(seen.outcome().detail()).contains("was closed");
              assertThat(seen.record().state()).isEqualTo(IntentState.PENDING);
            }),
        new Way("closed before a backlog entry's resume started", PendingReason.INTERRUPTED,
            BOTH, false, PendingReasonsMeanWhatTheySayTest::backlogClosedMidway,
            (seen, via) -> {
              assertThat(seen.record().revision())
                  .as("an entry that never started: its record is unchanged").isZero();
              assertThat(seen.record().state()).isEqualTo(IntentState.NEW);
              assertThat(seen.outcome().detail()).contains("was closed before");
            }),
        new Way("read while a drive waits in this process", PendingReason.IN_PROGRESS, BOTH,
            false, (t, via) -> t.whileWaiting(via, true),
            (seen, via) -> {
              assertThat(seen.record().state()).as("a wait for the next attempt")
                  .isEqualTo(IntentState.IN_FLIGHT);
              assertThat(seen.requests()).isEqualTo(1);
            }),
        new Way("the store fails recording the next step", PendingReason.STORE_FAILED,
            // The interceptor throws the store's own exception instead (docs/client.md).
            EnumSet.of(Via.INTENT_API), false,
            (t, via) -> {
              t.serve(r -> status(503).build());
              Setup setup = new Setup(policy(6, Duration.ofMinutes(5)));
              setup.store = new FailingWrites(t.store);
              return t.once(via, setup);
            },
            (seen, via) -> {
              assertThat(seen.record().revision()).as("the last durable state is kept: the"
                  + " record as created").isZero();
              assertThat(seen.outcome().cause()).isInstanceOf(StoreException.class);
            }),
        new Way("another process changes the record during the drive",
            PendingReason.DRIVEN_ELSEWHERE, BOTH, false,
            (t, via) -> {
              t.serve(r -> status(503).build());
              Setup setup = new Setup(policy(6, Duration.ofMinutes(5)));
              setup.store = new AnotherProcessWrites(t.store);
              return t.once(via, setup);
            },
            (seen, via) -> {
              assertThat(seen.record().notes()).as("the other process's write is the last")
                  .extracting(IntentRecord.Note::author).containsExactly("another process");
              assertThat(seen.requests()).as("this drive stopped at once").isEqualTo(1);
            }));
  }

  static Stream<Arguments> ways() {
    return table().stream().flatMap(way -> way.through().stream()
        .map(via -> Arguments.of(way, via)));
  }

  @ParameterizedTest(name = "{0} via {1}")
  @MethodSource("ways")
  void each_way_a_drive_ends_pending_reports_the_reason_its_javadoc_describes(Way way, Via via)
      throws Exception {
    Seen seen = way.scenario().run(this, via);

    assertThat(seen.outcomes()).as("every outcome reported for it").isNotEmpty()
        .allSatisfy(o -> assertThat(o.reason()).isEqualTo(way.reason()));
    way.meaning().check(seen, via);
    List<PendingReason> told = seen.events().stream()
        .filter(e -> e instanceof IntentEvent.GaveUpUnknown)
        .map(e -> ((IntentEvent.GaveUpUnknown) e).reason()).collect(Collectors.toList());
    if (!told.isEmpty()) {
      assertThat(told.get(told.size() - 1)).as("the event the metrics tag").isEqualTo(way.reason());
    }
    if (way.stored()) {
      assertThat(seen.record().state()).isEqualTo(IntentState.PENDING);
      assertThat(seen.record().reason()).as("the reason text the CLI prints")
          .startsWith(way.reason().name() + ": ");
      RecordCodec codec = new RecordCodec();
      IntentRecord reread = codec.decode(codec.encode(seen.record()), "the row's record");
      assertThat(IntentOutcome.of(reread)).as("read back from a durable store")
          .isInstanceOfSatisfying(IntentOutcome.Pending.class,
              p -> assertThat(p.reason()).isEqualTo(way.reason()));
    }
  }

  @Test
  void every_pending_reason_has_a_row_in_the_table() {
    assertThat(table().stream().map(Way::reason).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder(PendingReason.values());
  }

  // The scenarios.

  private Seen inProgressAnswers(Via via, RetryPolicy policy) throws Exception {
    serve(r -> status(409).addHeader("Retry-After", "1")
        .body("{\"error\":\"a request with this key is in progress\"}").build());
    return once(via, new Setup(policy));
  }

  private Seen acceptedAndStillProcessing(Via via, RetryPolicy policy) throws Exception {
    serve(r -> status(202).addHeader("Retry-After", "1").addHeader("Location", "/status/op_1")
        .body("{\"status\":\"processing\"}").build());
    return once(via, new Setup(policy));
  }

  /**
   * The intent waits for its next attempt ({@code Retry-After: 30}, on the real timer); then its
   * owner is closed, and the outcome is read before the close when {@code readFirst}.
   */
  private Seen whileWaiting(Via via, boolean readFirst) throws Exception {
    serve(r -> status(503).addHeader("Retry-After", "30").build());
    Setup setup = new Setup(RetryPolicy.builder().maxAttempts(6).maxDelay(Duration.ofMinutes(1))
        .attemptTimeout(Duration.ofSeconds(5)).deadline(Duration.ofMinutes(1)).build());
    setup.realTime = true;
    List<IntentOutcome.Pending> outcomes = new ArrayList<>();
    if (via == Via.INTENT_API) {
      IdempotentClient client = settings(IdempotentClient.builder().store(store), setup).build();
      IntentSpec spec = spec();
      CompletableFuture<IntentOutcome> outcome = client.submit(spec);
      awaitWaiting(spec.id());
      if (readFirst) {
        outcomes.add(pending(client.outcomeOf(spec.id()).orElseThrow()));
        Seen seen = seen(outcomes, spec.id());
        client.close();
        return seen;
      }
      client.close();
      outcomes.add(pending(outcome.get(5, TimeUnit.SECONDS)));
      outcomes.add(pending(IntentOutcome.of(store.get(spec.id()).orElseThrow())));
      return seen(outcomes, spec.id());
    }
    IdempotencyInterceptor oncely = settings(IdempotencyInterceptor.builder().store(store), setup)
        .build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();
    CompletableFuture<IOException> call = CompletableFuture.supplyAsync(() -> {
      try (Response response = app.newCall(request()).execute()) {
        return null;
      } catch (IOException e) {
        return e;
      }
    });
    IntentId id = awaitTagged();
    awaitWaiting(id);
    if (readFirst) {
      outcomes.add(pending(oncely.outcomeOf(TAG).orElseThrow()));
      Seen seen = seen(outcomes, id);
      oncely.close();
      return seen;
    }
    oncely.close();
    assertThat(call.get(5, TimeUnit.SECONDS)).as("the call ends with an exception").isNotNull();
    outcomes.add(pending(oncely.outcomeOf(TAG).orElseThrow()));
    return seen(outcomes, id);
  }

  /**
   * A backlog of records nothing sent yet (an app wrote them in its own transaction) is resumed;
   * the server holds the first requests, and the owner closes while they are on the wire, before
   * the turn of the others came. Seen: the outcome of the last entry, which never started.
   */
  private static Seen backlogClosedMidway(PendingReasonsMeanWhatTheySayTest t, Via via)
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger arrived = new AtomicInteger();
    Semaphore arrivals = new Semaphore(0);
    t.serve(r -> {
      arrived.incrementAndGet();
      arrivals.release();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return status(201).build();
    });
    int records = ResumeDrives.ATTEMPTS_AT_ONCE + 8;
    List<IntentId> ids = new ArrayList<>();
    try (IdempotentClient writer = IdempotentClient.builder().store(t.store).build()) {
      for (int i = 0; i < records; i++) {
        IntentRecord record = writer.newRecord(t.spec("order-" + i));
        t.store.create(record);
        ids.add(record.id());
      }
    }
    Setup setup = new Setup(policy(6, Duration.ofMinutes(5)));
    setup.realTime = true;
    List<CompletableFuture<IntentOutcome>> futures;
    // The client resumes on one thread, the interceptor on its resume threads.
    int onTheWire = via == Via.INTENT_API ? 1 : ResumeDrives.ATTEMPTS_AT_ONCE;
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      AutoCloseable owner;
      if (via == Via.INTENT_API) {
        IdempotentClient client = t.settings(IdempotentClient.builder().store(t.store)
            .executor(one), setup).build();
        futures = client.resumePending();
        owner = client;
      } else {
        IdempotencyInterceptor oncely = t.settings(IdempotencyInterceptor.builder()
            .store(t.store), setup).build();
        futures = oncely.resumePending(oncely.installOn(new OkHttpClient.Builder()).build(),
            o -> { });
        owner = oncely;
      }
      assertThat(arrivals.tryAcquire(onTheWire, 10, TimeUnit.SECONDS))
          .as("the first attempts reached the server").isTrue();
      owner.close();
      release.countDown();
      List<IntentOutcome.Pending> all = new ArrayList<>();
      for (CompletableFuture<IntentOutcome> f : futures) {
        all.add(pending(f.get(10, TimeUnit.SECONDS)));
      }
      assertThat(all).as("every entry of the backlog, started or not")
          .allSatisfy(p -> assertThat(p.reason()).isEqualTo(PendingReason.INTERRUPTED));
      assertThat(arrived.get()).as("nothing sent after the close").isEqualTo(onTheWire);
      // The futures follow the order the backlog is resumed in: the last one never started.
      IntentOutcome.Pending lastOutcome = all.get(all.size() - 1);
      assertThat(ids).contains(lastOutcome.id());
      return t.seen(List.of(lastOutcome), lastOutcome.id());
    } finally {
      release.countDown();
      one.shutdownNow();
    }
  }

  // The fixture.

  /** The drive settings of one row, applied alike to both entry points. */
  private static final class Setup {
    final RetryPolicy policy;
    boolean realTime;
    NetworkGate gate;
    RetryBudget budget;
    Dialect dialect;
    IntentStore store;

    Setup(RetryPolicy policy) {
      this.policy = policy;
    }
  }

  private static RetryPolicy policy(int attempts, Duration deadline) {
    return RetryPolicy.builder().maxAttempts(attempts).baseDelay(Duration.ofMillis(10))
        .attemptTimeout(Duration.ofSeconds(2)).deadline(deadline).build();
  }

  private <B extends DriveSettingsBuilder<B>> B settings(B builder, Setup s) {
    builder.retryPolicy(s.policy).listener(events::add);
    if (!s.realTime) {
      builder.clock(clock).sleeper(new RecordingSleeper(clock));
    }
    if (s.gate != null) {
      builder.networkGate(s.gate);
    }
    if (s.budget != null) {
      builder.retryBudget(s.budget);
    }
    if (s.dialect != null) {
      builder.dialect(s.dialect);
    }
    return builder;
  }

  /** One intent driven through {@code via} until it stops pending. */
  private Seen once(Via via, Setup s) throws Exception {
    IntentStore on = s.store != null ? s.store : store;
    List<IntentOutcome.Pending> outcomes = new ArrayList<>();
    if (via == Via.INTENT_API) {
      try (IdempotentClient client = settings(IdempotentClient.builder().store(on), s).build()) {
        IntentSpec spec = spec();
        outcomes.add(pending(client.execute(spec)));
        return seen(outcomes, spec.id());
      }
    }
    IdempotencyInterceptor oncely = settings(IdempotencyInterceptor.builder().store(on), s)
        .build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();
    try (Response response = app.newCall(request()).execute()) {
      // The last answer was handed out (a 202, a 503): the record says what is pending.
    } catch (IntentIOException e) {
      e.outcome().ifPresent(o -> outcomes.add(pending(o)));
    } catch (RetryBudgetExhaustedException e) {
      // The interceptor's documented answer to a refused retry; the record says it is pending.
    }
    IntentOutcome stored = oncely.outcomeOf(TAG).orElseThrow();
    outcomes.add(pending(stored));
    oncely.close();
    return seen(outcomes, stored.id());
  }

  private Seen seen(List<IntentOutcome.Pending> outcomes, IntentId id) {
    return new Seen(List.copyOf(outcomes), store.get(id).orElseThrow(), server.getRequestCount(),
        List.copyOf(events));
  }

  private void serve(Function<RecordedRequest, MockResponse> answer) {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return answer.apply(request);
      }
    });
  }

  private static MockResponse.Builder status(int code) {
    return new MockResponse.Builder().code(code);
  }

  private IntentSpec spec() {
    return spec("order-1");
  }

  private IntentSpec spec(String businessId) {
    return IntentSpec.builder().operation("create-payment").scope("tenant-a")
        .post(server.url("/payments").toString()).jsonBody(BODY).businessId(businessId).build();
  }

  private Request request() {
    return new Request.Builder().url(server.url("/payments")).post(RequestBody.create(BODY, JSON))
        .tag(IntentTag.class, TAG).build();
  }

  private static IntentOutcome.Pending pending(IntentOutcome outcome) {
    assertThat(outcome).isInstanceOf(IntentOutcome.Pending.class);
    return (IntentOutcome.Pending) outcome;
  }

  /** Waits until the intent's record says it waits for its next attempt. */
  private void awaitWaiting(IntentId id) throws InterruptedException {
    IntentRecord waiting = store.await(() -> store.get(id)
        .filter(r -> r.nextAttemptAt() != null && r.attempts() == 2).orElse(null),
        Duration.ofSeconds(10));
    assertThat(waiting).as("the intent waits for its next attempt").isNotNull();
  }

  private IntentId awaitTagged() throws InterruptedException {
    IntentRecord record = store.await(() -> store.findByBusinessId(TAG.scope(), TAG.operation(),
        TAG.businessId()).orElse(null), Duration.ofSeconds(10));
    assertThat(record).isNotNull();
    return record.id();
  }

  /** A store whose compare-and-set fails: the engine is down after the record was created. */
  private static final class FailingWrites extends ForwardingIntentStore {
    FailingWrites(IntentStore delegate) {
      super(delegate);
    }

    @Override
    public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
      throw new StoreException("the disk is full");
    }
  }

  /**
   * A store another process writes too: just before this drive's first compare-and-set, the other
   * process claims the record (its write carries a note naming it).
   */
  private static final class AnotherProcessWrites extends ForwardingIntentStore {
    private final AtomicBoolean written = new AtomicBoolean();

    AnotherProcessWrites(IntentStore delegate) {
      super(delegate);
    }

    @Override
    public boolean compareAndSet(IntentRecord expected, IntentRecord replacement) {
      if (written.compareAndSet(false, true)) {
        IntentRecord stored = delegate().get(expected.id()).orElseThrow();
        delegate().compareAndSet(stored, stored.successor().state(IntentState.IN_FLIGHT)
            .notes(List.of(new IntentRecord.Note(stored.updatedAt(), "another process",
                "claimed it")))
            .build());
      }
      return super.compareAndSet(expected, replacement);
    }
  }

  /** A dialect with a bug: judging whether an answer is a replay throws. */
  private static final class ThrowingReplayCheck implements Dialect {
    private final Dialect delegate;

    ThrowingReplayCheck(Dialect delegate) {
      this.delegate = delegate;
    }

    @Override
    public String name() {
      return "throwing";
    }

    @Override
    public String keyHeader() {
      return delegate.keyHeader();
    }

    @Override
    public String formatKey(String key) {
      return delegate.formatKey(key);
    }

    @Override
    public String parseKey(String headerValue) {
      return delegate.parseKey(headerValue);
    }

    @Override
    public Verdict classify(StoredResponse response) {
      return delegate.classify(response);
    }

    @Override
    public boolean isReplay(StoredResponse response) {
      throw new IllegalStateException("a bug in the dialect");
    }

    @Override
    public Duration keyRetention() {
      return delegate.keyRetention();
    }
  }
}
