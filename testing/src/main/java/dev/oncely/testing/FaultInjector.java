package dev.oncely.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import mockwebserver3.MockResponse;
import org.jspecify.annotations.Nullable;

/**
 * Injects the {@link Fault}s of the server's current {@link FaultScript}: draws one per request
 * and records it, answers in place of the server for the faults "before handling", and changes
 * how (or whether) the server's decided answer reaches the client for the faults "after commit".
 * The faults that act on the key record or the handler are applied where the server handles the
 * request ({@link Submissions}, {@link EffectHandler}, {@link Operations}). Thread-safe.
 */
final class FaultInjector {
  private final ServerConfig config;
  private final ServerLock lock;
  private final KeyStore keys;
  private final Operations operations;
  private final List<IdempotentServer.InjectedFault> injected = new ArrayList<>();
  private volatile FaultScript script;

  FaultInjector(ServerConfig config, ServerLock lock, KeyStore keys, Operations operations) {
    this.config = config;
    this.lock = lock;
    this.keys = keys;
    this.operations = operations;
    this.script = config.faults;
  }

  /** The script that applies to the requests arriving from now on. */
  FaultScript script() {
    return script;
  }

  /** Applies {@code next} to the requests arriving from now on. */
  void change(FaultScript next) {
    this.script = Objects.requireNonNull(next, "script");
  }

  /** The faults injected so far, in request order. */
  List<IdempotentServer.InjectedFault> injected() {
    synchronized (injected) {
      return List.copyOf(injected);
    }
  }

  /**
   * The fault {@code from} injects into {@code r}, the {@code ofKey}-th request of its key (0 for
   * none), recorded as injected; or null.
   */
  @Nullable Fault draw(FaultScript from, ReceivedRequest r, int ofKey) {
    Fault fault = from.faultFor(r, ofKey);
    if (fault != null) {
      synchronized (injected) {
        injected.add(new IdempotentServer.InjectedFault(r.number(), fault));
      }
    }
    return fault;
  }

  /**
   * The answer {@code fault} gives before the server handles {@code r}, or null to let the server
   * handle it. An {@link Fault#authOnRetry(int)} answers polls and the second and later requests
   * of a key.
   */
  MockResponse.@Nullable Builder beforeHandling(ReceivedRequest r, @Nullable Fault fault,
      int ofKey, boolean poll) {
    if (fault == null) {
      return null;
    }
    switch (fault.kind()) {
      case REFUSE:
        return fault.applyTo(new MockResponse.Builder());
      case ANSWER_BEFORE_HANDLING: {
        Answer a = Answer.of(fault.status(), "text/plain",
            "answered by the fault " + fault + ", not by the server");
        if (fault.status() == 429 || fault.status() == 503) {
          a = config.withRetryAfter(a);
        }
        return a.toResponse();
      }
      case REDIRECT:
        return Answer.of(fault.status(), "text/plain", "moved").with("Location", fault.location())
            .toResponse();
      case AUTH_ON_RETRY: {
        if (ofKey < 2 && !poll) {
          return null;
        }
        Answer a = Answer.json(fault.status(), "{\"error\":\"not authorized\"}");
        if (fault.status() == 401) {
          a = a.with("WWW-Authenticate", "Bearer error=\"invalid_token\"");
        } else if (fault.status() == 407) {
          a = a.with("Proxy-Authenticate", "Basic realm=\"proxy\"");
        }
        return a.toResponse();
      }
      default:
        return null;
    }
  }

  /**
   * What reaches the client of {@code r} once the server decided {@code answer} (and stored it):
   * the answer, or what {@code fault} of {@code from} makes of it. A {@link
   * Fault#stallAfterCommit()} under a script with a {@linkplain FaultScript#stallFor() stall
   * time} holds this thread that long (or until close), then drops the connection.
   *
   * @throws InterruptedException if interrupted while stalled
   */
  MockResponse afterHandling(Answer answer, @Nullable Fault fault, FaultScript from,
      ReceivedRequest r) throws InterruptedException {
    if (fault != null && fault.kind() == Fault.Kind.STALL_AFTER_COMMIT
        && from.stallFor().isPresent()) {
      holdStalled(from.stallFor().get());
      return Fault.dropAfterCommit().applyTo(new MockResponse.Builder()).build();
    }
    return afterCommit(answer, fault, r).build();
  }

  private MockResponse.Builder afterCommit(Answer answer, @Nullable Fault fault,
      ReceivedRequest r) {
    if (fault == null) {
      return answer.toResponse();
    }
    switch (fault.kind()) {
      case DROP_AFTER_COMMIT:
      case STALL_AFTER_COMMIT:
      case TRUNCATE_BODY:
      case INFORMATIONAL:
        return fault.applyTo(answer.toResponse());
      case GATEWAY_AFTER_COMMIT:
        return Answer.of(fault.status(), "text/html",
            "<html><body>error code: " + fault.status() + "</body></html>").toResponse();
      case SEE_OTHER_AFTER_COMMIT: {
        Operations.Operation op = keys.operationOf(r);
        return op == null ? answer.toResponse()
            : Answer.of(303, "text/plain", "see other").with("Location", operations.statusUrl(op))
                .toResponse();
      }
      default:
        return answer.toResponse();
    }
  }

  /** Holds a stalled request's thread (and so its connection) for stallFor, or until close. */
  private void holdStalled(Duration stallFor) throws InterruptedException {
    long deadline = System.nanoTime() + stallFor.toNanos();
    lock.lock();
    try {
      while (!lock.closed()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        lock.awaitClose(left);
      }
    } finally {
      lock.unlock();
    }
  }
}
