package dev.oncely.server;

import dev.oncely.client.IntentId;
import dev.oncely.client.StoreException;
import dev.oncely.client.StoredResponse;
import dev.oncely.server.internal.DaemonScheduler;
import dev.oncely.server.internal.DialectAnswers;
import dev.oncely.server.internal.KeptAnswers;
import dev.oncely.server.internal.KeyHeaders;
import dev.oncely.server.internal.Payloads;
import dev.oncely.server.internal.Repeat;
import dev.oncely.server.internal.RepeatRules;
import dev.oncely.server.internal.Settlements;
import dev.oncely.server.internal.StatusTokens;
import java.lang.System.Logger.Level;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The server half's core, framework-neutral: serves one idempotent request at a time, reserving
 * its key before the handler runs and answering repeats by the receipt's state. Adapters (the
 * Servlet {@link dev.oncely.server.servlet.IdempotencyFilter}, a test) turn their request into an
 * {@link InboundRequest} and write the {@link ServerAnswer} back.
 *
 * <p>For one request with key {@code k} in scope {@code s} on operation {@code o}:
 * <ol>
 *   <li>A missing key is {@code 400} where the endpoint requires one (else the handler runs
 *       unprotected); a malformed key, an unknown scope, a body over the limit or one that is not
 *       what its headers say is refused before anything is stored.
 *   <li>The payload is fingerprinted by the client's rule and bound to the request's method and
 *       path (one key sent to another resource of the same route is another request); {@code (s,
 *       o, k)} is reserved on the store's unique constraint with a lease: one short write.
 *   <li>The request that reserved runs the handler, its lease renewed once a third of it is spent
 *       (one sweep every 250 ms for all running handlers).
 *       Its answer is stored when it is 2xx, 3xx or a business 4xx (see {@code KeptAnswers});
 *       otherwise, or when the handler throws, the reservation is released, unless the handler
 *       recorded that effects are committed or declared the outcome pending.
 *   <li>A repeat gets what {@code RepeatRules} decides: the stored answer with {@code
 *       Idempotent-Replayed: true}, {@code 409} + {@code Retry-After} (or a bounded wait, then the
 *       replay), {@code 202} + a status URL while pending, the dialect's mismatch answer for
 *       another payload, or a takeover when the owner's lease ran out.
 * </ol>
 *
 * <p>Thread-safe. One instance per application (it owns one lease-renewal thread); close it when
 * the application stops. It does not close the {@link ReceiptStore}.
 */
public final class IdempotentEndpoints implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(IdempotentEndpoints.class.getName());
  /** How often a repeat that waits re-reads the store when no local change wakes it. */
  private static final long WAIT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final int MAX_ROUNDS = 16;
  /**
   * How often running handlers' leases are looked at: a quarter of the shortest lease a policy
   * may set (1 s), so a lease is renewed before two thirds of it are spent.
   */
  private static final long RENEWAL_SWEEP_MILLIS = 250;

  private final ReceiptStore store;
  private final ServerDialect dialect;
  private final DialectAnswers answers;
  private final ScopeResolver scopes;
  private final Clock clock;
  private final @Nullable ReceiptRecovery recovery;
  private final ReceiptListener listener;
  private final String instance;
  private final String statusPath;
  private final Settlements settlements = new Settlements();
  private final ScheduledExecutorService renewals;
  private final Set<HandlerContext> running = ConcurrentHashMap.newKeySet();

  private IdempotentEndpoints(Builder b) {
    this.store = b.store;
    this.dialect = b.dialect;
    this.answers = new DialectAnswers(b.dialect);
    this.scopes = b.scopes;
    this.clock = b.clock;
    this.recovery = b.recovery;
    this.listener = b.listener;
    this.instance = b.instance;
    this.statusPath = b.statusPath;
    this.renewals = DaemonScheduler.create("oncely-receipt-leases");
    renewals.scheduleWithFixedDelay(this::renewDueLeases, RENEWAL_SWEEP_MILLIS,
        RENEWAL_SWEEP_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** A builder for endpoints whose receipts live in {@code store}. */
  public static Builder builder(ReceiptStore store) {
    return new Builder(store);
  }

  /** The receipts. */
  public ReceiptStore receipts() {
    return store;
  }

  /** The dialect the answers are written in. */
  public ServerDialect dialect() {
    return dialect;
  }

  /** The path under which status URLs are served ({@code <path>/<operation>/<token>}). */
  public String statusPath() {
    return statusPath;
  }

  /**
   * Serves {@code request} on the endpoint {@code policy} describes, running {@code handler} only
   * if this call holds the key's receipt.
   *
   * @return the answer to write: the handler's, a replay, or one of the core's own
   * @throws Exception what the handler threw (after its reservation was released or kept pending)
   */
  public ServerAnswer handle(InboundRequest request, EndpointPolicy policy,
      EndpointHandler handler) throws Exception {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(handler, "handler");
    KeyHeaders.Parsed parsed = KeyHeaders.parse(dialect, request.headers(dialect.keyHeader()));
    if (parsed instanceof KeyHeaders.Missing) {
      if (policy.keyRequired()) {
        return answers.missingKey();
      }
      return handler.handle(new HandlerContext(request, null, null, clock, null));
    }
    if (parsed instanceof KeyHeaders.Malformed m) {
      return answers.malformedKey(m.problem());
    }
    String key = ((KeyHeaders.Key) parsed).key();
    if (request.body().length > policy.maxBodyBytes()) {
      return answers.tooLarge(policy.maxBodyBytes());
    }
    IntentId id;
    try {
      id = IntentId.of(scopes.scopeOf(request), policy.operation(), key);
    } catch (ScopeUnavailableException e) {
      return answers.scopeUnavailable(e.getMessage());
    } catch (IllegalArgumentException e) {
      return answers.scopeUnavailable("the request's scope is not a valid name");
    }
    Payloads.Result print = Payloads.fingerprint(request.body(), request.header("Content-Type"),
        joined(request, "Content-Encoding"), policy.volatileFields(), policy.maxBodyBytes());
    if (print instanceof Payloads.TooLarge) {
      return answers.tooLarge(policy.maxBodyBytes());
    }
    if (print instanceof Payloads.Malformed m) {
      return answers.malformedPayload(m.problem());
    }
    String fingerprint = Payloads.ofRequest(request.method(), request.path(),
        ((Payloads.Fingerprint) print).fingerprint());
    try {
      return serve(request, policy, handler, id, fingerprint);
    } catch (HandlerThrew e) {
      throw e.thrown;
    } catch (StoreException e) {
      LOG.log(Level.WARNING, "receipt store failed for " + id.operation() + " " + id.safeKey()
          + " before the handler ran: " + e.getMessage());
      return answers.storeUnavailable();
    }
  }

  /**
   * Carries what a handler threw past {@link #handle}'s own {@link StoreException} answer: a
   * store failure inside the handler (its own database) is the handler's failure, not a refusal
   * before it ran.
   */
  private static final class HandlerThrew extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Exception thrown;

    HandlerThrew(Exception thrown) {
      super(null, null, false, false);
      this.thrown = thrown;
    }
  }

  private ServerAnswer serve(InboundRequest request, EndpointPolicy policy,
      EndpointHandler handler, IntentId id, String fingerprint) throws Exception {
    long waitUntil = System.nanoTime() + policy.inProgressWait().toNanos();
    // Rounds lost to another caller changing the receipt between our read and our write; a wait
    // for a running first request is bounded by time instead.
    for (int races = 0; ; races++) {
      Instant now = clock.instant();
      Receipt candidate = Receipt.builder().id(id).fingerprint(fingerprint)
          .state(ReceiptState.PROCESSING).revision(0).lease(now.plus(policy.lease()), instance)
          .runs(1).statusToken(StatusTokens.tokenOf(id)).createdAt(now).updatedAt(now)
          .expiresAt(now.plus(policy.retention())).build();
      ReceiptStore.Reservation r = store.reserve(candidate);
      if (r.reserved()) {
        emit(ReceiptEvent.Kind.RESERVED, id);
        return run(request, policy, handler, candidate);
      }
      Receipt held = r.receipt();
      Repeat repeat = RepeatRules.decide(held, fingerprint, now, policy, recovery != null);
      if (repeat instanceof Repeat.Mismatch) {
        emit(ReceiptEvent.Kind.MISMATCH, id);
        return answers.mismatch(policy.retention());
      }
      if (repeat instanceof Repeat.Replay replay) {
        emit(ReceiptEvent.Kind.REPLAYED, id);
        return DialectAnswers.replay(replay.answer());
      }
      if (repeat instanceof Repeat.InProgress inProgress) {
        long left = waitUntil - System.nanoTime();
        if (left > 0) {
          settlements.await(id, Math.min(left, WAIT_POLL_NANOS));
          races--;
          continue;
        }
        emit(ReceiptEvent.Kind.IN_PROGRESS, id);
        return answers.inProgress(inProgress.retryAfter());
      }
      if (repeat instanceof Repeat.Pending) {
        emit(ReceiptEvent.Kind.PENDING_ANSWERED, id);
        return pendingAnswer(held);
      }
      if (repeat instanceof Repeat.Recover) {
        ServerAnswer recovered = recover(request, policy, handler, held, false);
        if (recovered != null) {
          return recovered;
        }
      } else {
        Receipt taken = takeOver(held, policy, now, repeat);
        if (taken != null) {
          emit(ReceiptEvent.Kind.TAKEN_OVER, id);
          if (repeat instanceof Repeat.TakeOverAndRun) {
            return run(request, policy, handler, taken);
          }
          if (repeat instanceof Repeat.TakeOverAndRecover) {
            ServerAnswer recovered = recoverOwned(request, policy, handler, taken);
            if (recovered != null) {
              return recovered;
            }
          } else {
            emit(ReceiptEvent.Kind.PENDING, id);
            settlements.changed(id);
            if (recovery == null) {
              return pendingAnswer(taken);
            }
            ServerAnswer recovered = recover(request, policy, handler, taken, true);
            if (recovered != null) {
              return recovered;
            }
          }
        }
      }
      if (races >= MAX_ROUNDS) {
        // Every round lost a race to another instance changing the same receipt: the key is busy.
        emit(ReceiptEvent.Kind.IN_PROGRESS, id);
        return answers.inProgress(RepeatRules.IN_PROGRESS_RETRY_AFTER);
      }
    }
  }

  /** Holds {@code held} for this call as the repeat's decision says, or null if it changed. */
  private @Nullable Receipt takeOver(Receipt held, EndpointPolicy policy, Instant now,
      Repeat repeat) {
    Receipt.Builder next = held.toBuilder().revision(held.revision() + 1).updatedAt(now);
    if (repeat instanceof Repeat.TakeOverAsPending) {
      next.state(ReceiptState.PENDING).lease(null, held.leaseOwner())
          .reason("the handler's owner stopped before the request finished; its effects are"
              + " unknown, so it is not run again");
    } else {
      next.state(ReceiptState.PROCESSING).lease(now.plus(policy.lease()), instance)
          .runs(held.runs() + (repeat instanceof Repeat.TakeOverAndRun ? 1 : 0))
          .expiresAt(now.plus(policy.retention()));
      if (repeat instanceof Repeat.TakeOverAndRun) {
        next.effectsCommitted(false).reference(null).reason(null);
      }
    }
    Receipt taken = next.build();
    return store.replace(held, taken) ? taken : null;
  }

  /**
   * Asks the app's recovery about a pending receipt; returns the answer, or null when the receipt
   * changed under it (the caller reads it again).
   */
  private @Nullable ServerAnswer recover(InboundRequest request, EndpointPolicy policy,
      EndpointHandler handler, Receipt pending, boolean takenOverJustNow) throws Exception {
    RecoveryDecision decision = decide(pending);
    Instant now = clock.instant();
    if (decision instanceof RecoveryDecision.Answer a) {
      Receipt settled = settled(pending, a.answer(), policy, now);
      if (!store.replace(pending, settled)) {
        return null;
      }
      emit(ReceiptEvent.Kind.RECOVERED, pending.id());
      settlements.changed(pending.id());
      return DialectAnswers.replay(settled.answer());
    }
    if (decision instanceof RecoveryDecision.Rerun) {
      Receipt taken = pending.toBuilder().revision(pending.revision() + 1)
          .state(ReceiptState.PROCESSING).lease(now.plus(policy.lease()), instance)
          .runs(pending.runs() + 1).effectsCommitted(false).reference(null).reason(null)
          .updatedAt(now).build();
      if (!store.replace(pending, taken)) {
        return null;
      }
      if (!takenOverJustNow) {
        emit(ReceiptEvent.Kind.TAKEN_OVER, pending.id());
      }
      return run(request, policy, handler, taken);
    }
    RecoveryDecision.Unknown unknown = (RecoveryDecision.Unknown) decision;
    LOG.log(Level.DEBUG, () -> "receipt " + pending.id().operation() + " "
        + pending.id().safeKey() + " stays pending: " + unknown.reason());
    emit(ReceiptEvent.Kind.PENDING_ANSWERED, pending.id());
    return pendingAnswer(pending);
  }

  /**
   * Completes a receipt this call took over after its owner died past the recovery point: from
   * the app's recovery, or as pending when it cannot render the answer; never runs the effects.
   */
  private @Nullable ServerAnswer recoverOwned(InboundRequest request, EndpointPolicy policy,
      EndpointHandler handler, Receipt owned) throws Exception {
    RecoveryDecision decision = recovery == null
        ? RecoveryDecision.unknown("no recovery is configured") : decide(owned);
    Instant now = clock.instant();
    if (decision instanceof RecoveryDecision.Answer a) {
      Receipt settled = settled(owned, a.answer(), policy, now);
      if (!store.replace(owned, settled)) {
        return null;
      }
      emit(ReceiptEvent.Kind.RECOVERED, owned.id());
      settlements.changed(owned.id());
      return DialectAnswers.replay(settled.answer());
    }
    if (decision instanceof RecoveryDecision.Rerun) {
      Receipt rerun = owned.toBuilder().revision(owned.revision() + 1).runs(owned.runs() + 1)
          .effectsCommitted(false).reference(null).updatedAt(now).build();
      if (!store.replace(owned, rerun)) {
        return null;
      }
      return run(request, policy, handler, rerun);
    }
    Receipt pending = owned.toBuilder().revision(owned.revision() + 1)
        .state(ReceiptState.PENDING).lease(null, owned.leaseOwner())
        .reason("the handler's effects are committed but its answer was not stored; the app's"
            + " recovery has not rendered it yet").updatedAt(now).build();
    if (!store.replace(owned, pending)) {
      return null;
    }
    emit(ReceiptEvent.Kind.PENDING, owned.id());
    settlements.changed(owned.id());
    return pendingAnswer(pending);
  }

  private RecoveryDecision decide(Receipt receipt) {
    try {
      return Objects.requireNonNull(recovery.recover(receipt), "recovery decision");
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "the receipt recovery failed for " + receipt.id().operation() + " "
          + receipt.id().safeKey() + "; the receipt stays pending", e);
      return RecoveryDecision.unknown("the recovery failed: " + e.getClass().getSimpleName());
    }
  }

  private ServerAnswer run(InboundRequest request, EndpointPolicy policy,
      EndpointHandler handler, Receipt owned) throws Exception {
    HandlerContext context = new HandlerContext(request, store, policy, clock, owned);
    running.add(context);
    ServerAnswer answer = null;
    Throwable failure = null;
    try {
      answer = Objects.requireNonNull(handler.handle(context), "the handler's answer");
    } catch (Exception | Error e) {
      failure = e;
    } finally {
      running.remove(context);
    }
    ServerAnswer result = settle(context, policy, answer, failure);
    if (failure != null) {
      if (failure instanceof Exception e) {
        throw new HandlerThrew(e);
      }
      throw (Error) failure;
    }
    return result;
  }

  /**
   * One sweep of the renewal thread: renews the lease of every running handler whose lease is a
   * third spent. One periodic task for all handlers, so a request pays a set insertion and
   * removal for its renewals, not a timer of its own.
   */
  private void renewDueLeases() {
    for (HandlerContext context : running) {
      renew(context);
    }
  }

  private void renew(HandlerContext context) {
    try {
      if (!context.renewLeaseIfDue()) {
        LOG.log(Level.WARNING, "lost the receipt of " + context.receipt().id().operation() + " "
            + context.receipt().id().safeKey() + " while its handler runs: another run took it"
            + " over after the lease ran out");
      }
    } catch (StoreException e) {
      LOG.log(Level.WARNING, "could not renew a handler's lease: " + e.getMessage());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "could not renew a handler's lease", e);
    }
  }

  /** Writes what the handler's end means for its receipt; returns the answer to send. */
  private @Nullable ServerAnswer settle(HandlerContext context, EndpointPolicy policy,
      @Nullable ServerAnswer answer, @Nullable Throwable failure) {
    Receipt owned = context.beginFinish();
    IntentId id = owned.id();
    Instant now = clock.instant();
    Receipt next;
    ReceiptEvent.Kind kind;
    ServerAnswer toSend = answer;
    if (context.pendingRequested()) {
      next = owned.toBuilder().revision(owned.revision() + 1).state(ReceiptState.PENDING)
          .lease(null, owned.leaseOwner()).reference(context.pendingReference())
          .reason(context.pendingReason()).updatedAt(now).build();
      kind = ReceiptEvent.Kind.PENDING;
      if (failure == null) {
        toSend = answer != null && answer.status() == 202
            ? withStatusUrl(answer, next) : pendingAnswer(next);
      }
    } else if (failure == null && KeptAnswers.isKept(answer.status())) {
      next = settled(owned, answer, policy, now);
      kind = ReceiptEvent.Kind.COMPLETED;
    } else if (owned.effectsCommitted()) {
      next = owned.toBuilder().revision(owned.revision() + 1).state(ReceiptState.PENDING)
          .lease(null, owned.leaseOwner()).reason("the handler's effects are committed but it "
              + (failure != null ? "failed" : "answered " + answer.status())
              + " before its answer was stored").updatedAt(now).build();
      kind = ReceiptEvent.Kind.PENDING;
    } else {
      next = owned.toBuilder().revision(owned.revision() + 1).state(ReceiptState.RELEASED)
          .lease(null, owned.leaseOwner()).reason(failure != null ? "the handler failed"
              : "the handler answered " + answer.status()).updatedAt(now)
          .expiresAt(now.plus(policy.retention())).build();
      kind = ReceiptEvent.Kind.RELEASED;
    }
    try {
      if (context.finish(next)) {
        emit(kind, id);
      } else {
        emit(ReceiptEvent.Kind.FENCED_OUT, id);
        LOG.log(Level.ERROR, "the handler of " + id.operation() + " " + id.safeKey()
            + " finished after another run took its receipt over (its lease ran out while it"
            + " ran): its end is not recorded");
      }
    } catch (StoreException e) {
      // The effect happened and this caller gets its answer; the receipt stays processing, and
      // a repeat after the lease finds it by the takeover rules (never a blind re-run unless the
      // endpoint is safe to re-run).
      LOG.log(Level.ERROR, "could not record the end of " + id.operation() + " " + id.safeKey()
          + ": " + e.getMessage());
    }
    settlements.changed(id);
    return toSend;
  }

  private static Receipt settled(Receipt owned, ServerAnswer answer, EndpointPolicy policy,
      Instant now) {
    StoredResponse stored = StoredResponse.of(answer.status(),
        answer.headersIn(policy.replayedHeaders()), answer.body());
    return owned.toBuilder().revision(owned.revision() + 1).state(ReceiptState.COMPLETED)
        .lease(null, owned.leaseOwner()).answer(stored).updatedAt(now)
        .expiresAt(now.plus(policy.retention())).build();
  }

  private ServerAnswer pendingAnswer(Receipt receipt) {
    return answers.pending(statusUrl(receipt), RepeatRules.IN_PROGRESS_RETRY_AFTER);
  }

  private ServerAnswer withStatusUrl(ServerAnswer answer, Receipt receipt) {
    ServerAnswer a = answer.header("Location") == null
        ? answer.withHeader("Location", statusUrl(receipt)) : answer;
    return a.header("Retry-After") == null ? a.withHeader("Retry-After", "1") : a;
  }

  /**
   * The answer to a request whose body is longer than {@code policy} accepts ({@code 413}, in the
   * dialect): for adapters that stop reading a body at the limit, before anything is stored.
   */
  public ServerAnswer tooLarge(EndpointPolicy policy) {
    return answers.tooLarge(policy.maxBodyBytes());
  }

  /** The status URL of {@code receipt}: {@code <statusPath>/<operation>/<token>}. */
  public String statusUrl(Receipt receipt) {
    return statusPath + "/" + URLEncoder.encode(receipt.id().operation(), StandardCharsets.UTF_8)
        + "/" + receipt.statusToken();
  }

  /**
   * Serves a status URL: the receipt that {@code token} names in the request's scope and {@code
   * operation}. Completed: the stored answer, replayed; processing or pending: {@code 202} +
   * {@code Retry-After}; released: {@code 409}; none: {@code 404}.
   */
  public ServerAnswer status(InboundRequest request, String operation, String token) {
    String scope;
    try {
      scope = scopes.scopeOf(request);
    } catch (ScopeUnavailableException e) {
      return answers.scopeUnavailable(e.getMessage());
    }
    Optional<Receipt> found;
    try {
      found = store.findByStatusToken(scope, operation, token);
    } catch (IllegalArgumentException e) {
      return answers.unknownStatus();
    } catch (StoreException e) {
      return answers.storeUnavailable();
    }
    if (found.isEmpty()) {
      return answers.unknownStatus();
    }
    Receipt receipt = found.get();
    return switch (receipt.state()) {
      case COMPLETED -> DialectAnswers.replay(receipt.answer());
      case PROCESSING, PENDING -> pendingAnswer(receipt);
      case RELEASED -> answers.released();
    };
  }

  /**
   * Settles a pending receipt with {@code answer} (the outbound intent it waited on reached an
   * outcome; an operator decided): every repeat then gets it.
   *
   * @return false if no pending receipt has {@code id} (it is unknown, or no longer pending)
   * @throws StoreException if the store failed
   */
  public boolean settle(IntentId id, ServerAnswer answer, EndpointPolicy policy) {
    Objects.requireNonNull(answer, "answer");
    for (int round = 0; round < MAX_ROUNDS; round++) {
      Optional<Receipt> found = store.get(id);
      if (found.isEmpty() || found.get().state() != ReceiptState.PENDING) {
        return false;
      }
      Receipt pending = found.get();
      if (store.replace(pending, settled(pending, answer, policy, clock.instant()))) {
        emit(ReceiptEvent.Kind.RECOVERED, id);
        settlements.changed(id);
        return true;
      }
    }
    return false;
  }

  private void emit(ReceiptEvent.Kind kind, IntentId id) {
    try {
      listener.onEvent(new ReceiptEvent(kind, id.operation(), id.safeKey()));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "a receipt listener failed", e);
    }
    if (kind == ReceiptEvent.Kind.COMPLETED || kind == ReceiptEvent.Kind.RECOVERED) {
      settlements.changed(id);
    }
  }

  private static @Nullable String joined(InboundRequest request, String name) {
    var values = request.headers(name);
    return values.isEmpty() ? null : String.join(", ", values);
  }

  /** Stops the lease renewals. The receipt store stays open. */
  @Override
  public void close() {
    renewals.shutdownNow();
  }

  /** Builds {@link IdempotentEndpoints}. Not thread-safe. */
  public static final class Builder {
    private final ReceiptStore store;
    private ServerDialect dialect = ServerDialect.IETF;
    private ScopeResolver scopes = ScopeResolver.principal();
    private Clock clock = Clock.systemUTC();
    private @Nullable ReceiptRecovery recovery;
    private ReceiptListener listener = event -> {};
    private String instance = defaultInstance();
    private String statusPath = "/oncely/receipts";

    Builder(ReceiptStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /** The dialect (default {@link ServerDialect#IETF}). */
    public Builder dialect(ServerDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /** How a request's scope is found (default {@link ScopeResolver#principal()}). */
    public Builder scopeResolver(ScopeResolver scopes) {
      this.scopes = Objects.requireNonNull(scopes, "scopes");
      return this;
    }

    /** The clock of leases and retention (default the system's UTC clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The app's recovery for receipts the server cannot decide (default none). */
    public Builder recovery(ReceiptRecovery recovery) {
      this.recovery = Objects.requireNonNull(recovery, "recovery");
      return this;
    }

    /** Hears every receipt event (metrics, logs). */
    public Builder listener(ReceiptListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** This instance's name in leases (default host, process id and a random suffix). */
    public Builder instance(String instance) {
      this.instance = dev.oncely.client.Identifiers.checkText("instance", instance);
      return this;
    }

    /**
     * The path status URLs are served under (default {@code /oncely/receipts}).
     *
     * @throws IllegalArgumentException if it does not start with {@code /} or ends with one
     */
    public Builder statusPath(String statusPath) {
      Objects.requireNonNull(statusPath, "statusPath");
      if (!statusPath.startsWith("/") || statusPath.endsWith("/")) {
        throw new IllegalArgumentException("statusPath must start with / and not end with one,"
            + " was " + statusPath);
      }
      this.statusPath = statusPath;
      return this;
    }

    /** Returns the endpoints. */
    public IdempotentEndpoints build() {
      return new IdempotentEndpoints(this);
    }

    private static String defaultInstance() {
      byte[] random = new byte[4];
      new SecureRandom().nextBytes(random);
      return ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
    }
  }
}
