package dev.oncely.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import dev.oncely.client.testing.ManualClock;
import dev.oncely.server.EndpointTestKit.Gate;
import dev.oncely.server.EndpointTestKit.HandlerFailure;
import dev.oncely.server.ReceiptModel.Answer;
import dev.oncely.server.ReceiptModel.Decision;
import dev.oncely.server.ReceiptModel.Expected;
import dev.oncely.server.ReceiptModel.Outcome;
import dev.oncely.server.ReceiptModel.Payload;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Model-based property of the core: random sequences of actions on one key (a request with the
 * same or another payload whose handler answers 2xx, a business 4xx, 5xx, a passing 4xx, throws,
 * commits its effects and then fails, declares its outcome pending, or whose owner dies while it
 * runs; the lease running out by the clock; an operator settling; the recovery hook's decisions),
 * on endpoints that are or are not safe to re-run, with or without a recovery hook, checked
 * against {@link ReceiptModel} after every action. Invariants besides the model's answers:
 * the handler never runs twice for the key unless a release, a takeover or a recovery's rerun
 * happened in between; every replay is the first stored answer, byte for byte; a mismatch never
 * changes the receipt; a receipt whose effects are committed never runs again; a dead owner that
 * was taken over is fenced out when it finally ends. Cases per run: {@code
 * -Doncely.property.tries} (default 200).
 */
class ReceiptStateMachineProperties {
  private static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
  private static final IntentId ID = IntentId.of("alice", EndpointTestKit.OPERATION, "k1");
  private static final String PAYLOAD_A = "{\"amount\":1000,\"currency\":\"JPY\"}";
  private static final String PAYLOAD_A_REORDERED = "{ \"currency\":\"JPY\", \"amount\":1000 }";
  private static final String PAYLOAD_B = "{\"amount\":2000,\"currency\":\"JPY\"}";

  /** One step of a sequence. */
  sealed interface Action {}

  /**
   * A request.
   *
   * @param reordered whether payload A is sent with its members in another order
   */
  record Request(Payload payload, boolean reordered, Outcome outcome, Decision decision)
      implements Action {}

  /** The clock moves past the lease. */
  record ExpireLease() implements Action {}

  /** An operator settles the key. */
  record Settle() implements Action {}

  @Provide
  Arbitrary<List<Action>> actions() {
    Arbitrary<Action> request = Combinators.combine(
        Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just(Payload.A)),
            Tuple.of(1, Arbitraries.just(Payload.B))),
        Arbitraries.of(true, false), Arbitraries.of(Outcome.class),
        Arbitraries.of(Decision.class)).as(Request::new);
    return Arbitraries.frequencyOf(
        Tuple.of(8, request),
        Tuple.of(2, Arbitraries.just(new ExpireLease())),
        Tuple.of(1, Arbitraries.just(new Settle())))
        .list().ofMinSize(1).ofMaxSize(14);
  }

  @Property
  void every_sequence_keeps_the_decision_tables_promises(@ForAll("actions") List<Action> actions,
      @ForAll boolean rerunSafe, @ForAll boolean recoverySet) throws Exception {
    try (World world = new World(rerunSafe, recoverySet)) {
      for (int step = 0; step < actions.size(); step++) {
        world.apply(actions.get(step), step);
      }
      world.finish();
    }
  }

  /** The core, its store, its clock, the model, and the owners that died along the way. */
  static final class World implements AutoCloseable {
    final ManualClock clock = new ManualClock(T0);
    final ReceiptStore receipts = ReceiptStore.on(new InMemoryIntentStore());
    final ReceiptModel model;
    final EndpointPolicy policy;
    final List<ReceiptEvent> events = new CopyOnWriteArrayList<>();
    final ExecutorService dying = Executors.newCachedThreadPool();
    final List<Gate> deadOwners = new ArrayList<>();
    final List<CompletableFuture<?>> deadCalls = new ArrayList<>();
    final IdempotentEndpoints live;
    final AtomicInteger runs = new AtomicInteger();
    final AtomicBoolean effectsEverCommitted = new AtomicBoolean();
    final List<String> violations = new CopyOnWriteArrayList<>();
    /** Events seen up to the last run's start: a run needs a release or takeover after it. */
    int eventsAtLastRun;
    volatile Decision decision = Decision.UNKNOWN;
    volatile int step;

    World(boolean rerunSafe, boolean recoverySet) {
      model = new ReceiptModel(rerunSafe, recoverySet);
      policy = EndpointPolicy.builder(EndpointTestKit.OPERATION).rerunSafe(rerunSafe).build();
      live = endpoints("instance-live");
    }

    IdempotentEndpoints endpoints(String instance) {
      IdempotentEndpoints.Builder b = IdempotentEndpoints.builder(receipts).clock(clock)
          .instance(instance).listener(events::add);
      if (model.recoverySet) {
        b.recovery(this::recover);
      }
      return b.build();
    }

    /** The app's hook: says what the action says, never "run again" after committed effects. */
    RecoveryDecision recover(Receipt receipt) {
      Decision d = decision == Decision.RERUN && receipt.effectsCommitted()
          ? Decision.UNKNOWN : decision;
      return switch (d) {
        case ANSWER -> RecoveryDecision.answer(toServer(ReceiptModel.recoveryAnswer(step)));
        case RERUN -> RecoveryDecision.rerun();
        case UNKNOWN -> RecoveryDecision.unknown("the ledger does not know yet");
      };
    }

    void apply(Action action, int step) throws Exception {
      this.step = step;
      String where = "step " + step + " " + action;
      if (action instanceof ExpireLease) {
        clock.advance(policy.lease().plusSeconds(1));
        model.expireLease();
      } else if (action instanceof Settle) {
        boolean expected = model.settle(step);
        boolean settled = live.settle(ID, toServer(ReceiptModel.settleAnswer(step)), policy);
        assertThat(settled).as(where).isEqualTo(expected);
      } else {
        request((Request) action, where);
      }
      checkReceipt(where);
      assertThat(violations).as(where).isEmpty();
    }

    private void request(Request r, String where) throws Exception {
      decision = r.decision();
      Receipt before = receipts.get(ID).orElse(null);
      Expected expected = model.request(r.payload(), r.outcome(), r.decision(), step);
      EndpointHandler handler = handler(r.outcome());
      InboundRequest request = EndpointTestKit.post("alice", EndpointTestKit.quoted("k1"),
          r.payload() == Payload.B ? PAYLOAD_B : r.reordered() ? PAYLOAD_A_REORDERED : PAYLOAD_A);
      Object got;
      if (r.outcome().dies()) {
        got = dyingCall(request, handler);
      } else {
        try {
          got = live.handle(request, policy, handler);
        } catch (HandlerFailure e) {
          got = e;
        }
      }
      check(expected, got, where);
      if (expected instanceof ReceiptModel.Mismatch) {
        assertThat(receipts.get(ID).orElse(null)).as(where + ": a mismatch changes nothing")
            .isEqualTo(before);
      }
      assertThat(runs.get()).as(where + ": handler runs").isEqualTo(model.runs);
    }

    /**
     * Sends on an instance that dies if its handler runs: the handler then never returns while
     * the sequence goes on, and the instance's lease renewals stop. Returns the answer, or the
     * handler's gate if it is now stuck in it.
     */
    private Object dyingCall(InboundRequest request, EndpointHandler handler) throws Exception {
      Gate gate = new Gate();
      deadOwners.add(gate);
      CompletableFuture<Void> entered = new CompletableFuture<>();
      IdempotentEndpoints owner = endpoints("instance-dying-" + step);
      CompletableFuture<Object> call = CompletableFuture.supplyAsync(() -> {
        try {
          return owner.handle(request, policy, c -> {
            ServerAnswer a = handler.handle(c);
            entered.complete(null);
            gate.pass();
            return a;
          });
        } catch (Exception e) {
          return e;
        }
      }, dying);
      deadCalls.add(call);
      CompletableFuture.anyOf(call, entered).get(10, TimeUnit.SECONDS);
      if (call.isDone()) {
        owner.close();
        return call.get();
      }
      owner.close();
      return gate;
    }

    private EndpointHandler handler(Outcome outcome) {
      return c -> {
        int run = runs.incrementAndGet();
        checkMayRun(run);
        ReceiptModel.Answer answer = ReceiptModel.handlerAnswer(run, outcome);
        switch (outcome) {
          case THROW -> throw new HandlerFailure("run " + run + " failed");
          case COMMIT_THEN_THROW -> {
            commit(c, run);
            throw new HandlerFailure("run " + run + " failed after its effects");
          }
          case COMMIT_THEN_5XX, COMMIT_THEN_DIE -> commit(c, run);
          case PENDING -> c.pending("ref-" + run, "the provider's answer is unknown");
          default -> { }
        }
        return toServer(answer);
      };
    }

    private void commit(HandlerContext c, int run) {
      c.effectsCommitted("ref-" + run);
      effectsEverCommitted.set(true);
    }

    /** The invariants of a run's start, checked by the handler itself. */
    private void checkMayRun(int run) {
      if (effectsEverCommitted.get()) {
        violations.add("run " + run + " started after effects were committed");
      }
      if (run > 1) {
        boolean allowed = events.subList(eventsAtLastRun, events.size()).stream()
            .anyMatch(e -> e.kind() == ReceiptEvent.Kind.RELEASED
                || e.kind() == ReceiptEvent.Kind.TAKEN_OVER);
        if (!allowed) {
          violations.add("run " + run + " started with no release or takeover since run "
              + (run - 1));
        }
      }
      eventsAtLastRun = events.size();
    }

    private void check(Expected expected, Object got, String where) {
      String as = where + ": expected " + expected + ", got " + describe(got);
      if (expected instanceof ReceiptModel.Ran ran) {
        Outcome o = ran.outcome();
        if (o.dies()) {
          assertThat(got).as(as).isInstanceOf(Gate.class);
        } else if (o == Outcome.THROW || o == Outcome.COMMIT_THEN_THROW) {
          assertThat(got).as(as).isInstanceOf(HandlerFailure.class);
        } else if (o == Outcome.PENDING) {
          assertPending(got, as);
        } else {
          ServerAnswer a = answerOf(got, as);
          assertThat(answerOf(a)).as(as).isEqualTo(ReceiptModel.handlerAnswer(ran.run(), o));
          assertThat(a.header("Idempotent-Replayed")).as(as).isNull();
        }
      } else if (expected instanceof ReceiptModel.Replay replay) {
        ServerAnswer a = answerOf(got, as);
        assertThat(answerOf(a)).as(as + ": the first stored answer").isEqualTo(replay.answer())
            .isEqualTo(model.stored);
        assertThat(a.header("Idempotent-Replayed")).as(as).isEqualTo("true");
      } else if (expected instanceof ReceiptModel.Mismatch) {
        assertThat(answerOf(got, as).status()).as(as).isEqualTo(422);
      } else if (expected instanceof ReceiptModel.InProgress) {
        assertThat(answerOf(got, as).status()).as(as).isEqualTo(409);
      } else {
        assertPending(got, as);
      }
      if (got instanceof ServerAnswer a && "true".equals(a.header("Idempotent-Replayed"))) {
        assertThat(answerOf(a)).as(as + ": every replay is the first stored answer")
            .isEqualTo(model.stored);
      }
    }

    private void assertPending(Object got, String as) {
      ServerAnswer a = answerOf(got, as);
      assertThat(a.status()).as(as).isEqualTo(202);
      assertThat(a.header("Location")).as(as).startsWith(live.statusPath() + "/");
    }

    /** The stored receipt agrees with the model; a completed one holds the first answer. */
    private void checkReceipt(String where) {
      Receipt r = receipts.get(ID).orElse(null);
      if (model.state == ReceiptModel.State.NONE) {
        assertThat(r).as(where).isNull();
        return;
      }
      assertThat(r).as(where).isNotNull();
      assertThat(r.state().name()).as(where + ": state").isEqualTo(model.state.name());
      assertThat(r.runs()).as(where + ": runs recorded").isEqualTo(model.runs);
      if (model.state == ReceiptModel.State.COMPLETED) {
        assertThat(new Answer(r.answer().status(), r.answer().body())).as(where)
            .isEqualTo(model.stored);
      }
      if (model.state == ReceiptModel.State.PENDING
          || model.state == ReceiptModel.State.PROCESSING) {
        assertThat(r.effectsCommitted()).as(where + ": effects committed")
            .isEqualTo(model.effectsCommitted);
      }
    }

    /**
     * Lets every dead owner end: the one that still holds the receipt (never taken over)
     * completes it; every other one is fenced out and changes nothing.
     */
    void finish() throws Exception {
      Receipt before = receipts.get(ID).orElse(null);
      long fencedBefore = fenced();
      deadOwners.forEach(Gate::open);
      for (CompletableFuture<?> call : deadCalls) {
        call.get(10, TimeUnit.SECONDS);
      }
      long deadRuns = deadCalls.stream().filter(World::isDeadRun).count();
      Receipt after = receipts.get(ID).orElse(null);
      if (model.dyingHolder != 0) {
        assertThat(after.state()).as("the holder that never was taken over finishes")
            .isEqualTo(ReceiptState.COMPLETED);
        assertThat(new Answer(after.answer().status(), after.answer().body()))
            .isEqualTo(ReceiptModel.handlerAnswer(model.dyingHolder, Outcome.DIE));
        deadRuns--;
      } else {
        assertThat(after).as("dead owners that were taken over change nothing")
            .isEqualTo(before);
      }
      assertThat(fenced() - fencedBefore).as("every dead owner taken over is fenced out")
          .isEqualTo(deadRuns);
      assertThat(violations).isEmpty();
    }

    private long fenced() {
      return events.stream().filter(e -> e.kind() == ReceiptEvent.Kind.FENCED_OUT).count();
    }

    /** Whether the call's handler ran and died (its answer is the late one, or it was stuck). */
    private static boolean isDeadRun(CompletableFuture<?> call) {
      Object result = call.join();
      return result instanceof ServerAnswer a && new String(a.body(), StandardCharsets.UTF_8)
          .startsWith("{\"late\":");
    }

    @Override
    public void close() throws Exception {
      deadOwners.forEach(Gate::open);
      dying.shutdown();
      dying.awaitTermination(10, TimeUnit.SECONDS);
      live.close();
      receipts.close();
    }
  }

  static ServerAnswer toServer(Answer a) {
    return ServerAnswer.of(a.status(), Map.of("Content-Type",
        List.of(EndpointTestKit.JSON)), a.body());
  }

  static Answer answerOf(ServerAnswer a) {
    return new Answer(a.status(), a.body());
  }

  static ServerAnswer answerOf(Object got, String as) {
    assertThat(got).as(as).isInstanceOf(ServerAnswer.class);
    return (ServerAnswer) got;
  }

  static String describe(Object got) {
    if (got instanceof ServerAnswer a) {
      return a.status() + " " + new String(a.body(), StandardCharsets.UTF_8)
          + ("true".equals(a.header("Idempotent-Replayed")) ? " (replayed)" : "");
    }
    return got instanceof Gate ? "a handler stuck in its run" : String.valueOf(got);
  }
}
