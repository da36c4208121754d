package dev.oncely.testing;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The operation behind each committed effect and its status URL: the {@code 202} + polling
 * simulator. An accepted operation answers "processing" until it completes, after a number of
 * polls or a time since its acceptance (no timer thread: completion is evaluated when it is
 * polled, its key repeated, or the test asks); then its status URL answers {@code 200} with the
 * result. An effect answered {@code 201} at once has a completed operation too, whose status URL
 * is the created resource.
 *
 * <p>Not thread-safe on its own: the methods that say so take the server's {@link ServerLock};
 * the others are called with it held.
 */
final class Operations {
  private final ServerConfig config;
  private final ServerLock lock;
  private final Map<String, Operation> operations = new HashMap<>();

  /** One effect's operation: its status URL id, processing until done. */
  static final class Operation {
    final String id;
    final EffectLedger.Effect effect;
    final Instant acceptedAt;
    /** The request that committed the effect, for the result body; dropped once done. */
    @Nullable ReceivedRequest request;
    int pollsLeft;
    boolean done;
    /** The {@code 200} answer with the result, once done. */
    @Nullable Answer result;

    Operation(String id, EffectLedger.Effect effect, ReceivedRequest request, Instant acceptedAt) {
      this.id = id;
      this.effect = effect;
      this.request = request;
      this.acceptedAt = acceptedAt;
    }
  }

  Operations(ServerConfig config, ServerLock lock) {
    this.config = config;
    this.lock = lock;
  }

  /** Opens the operation of {@code effect}, committed by {@code request}, processing. */
  Operation open(EffectLedger.Effect effect, ReceivedRequest request) {
    Operation op = new Operation(config.idPrefix + String.format("%06d", effect.sequence()),
        effect, request, config.clock.instant());
    operations.put(op.id, op);
    return op;
  }

  /** Lets an accepted {@code op} process until its polls or its time are used up. */
  void accept(Operation op) {
    op.pollsLeft = config.completeAfter == null ? config.completeAfterPolls : Integer.MAX_VALUE;
  }

  /** Completes {@code op}: renders its result, the {@code 200} its status URL answers from now. */
  void complete(Operation op) {
    op.done = true;
    String body = config.resultBody == null
        ? "{\"id\":\"" + op.id + "\",\"intent\":" + JsonText.quote(op.effect.intent())
            + ",\"status\":\"succeeded\"}"
        : Objects.requireNonNull(config.resultBody.apply(
            new IdempotentServer.Committed(op.id, op.effect, op.request)),
            "resultBody returned null");
    op.result = Answer.json(200, body);
    op.request = null;
  }

  /** Completes {@code op} if it was accepted at least {@code completeAfter} ago. */
  void completeIfDue(Operation op) {
    if (!op.done && config.completeAfter != null
        && !config.clock.instant().isBefore(op.acceptedAt.plus(config.completeAfter))) {
      complete(op);
    }
  }

  /** The "processing" answer of {@code op} with {@code status}. */
  Answer processing(int status, Operation op) {
    return config.withRetryAfter(
        Answer.json(status, "{\"id\":\"" + op.id + "\",\"status\":\"processing\"}"));
  }

  /** The status URL of {@code op}: relative, or absolute on the status origin. */
  String statusUrl(Operation op) {
    if (config.statusOrigin == null) {
      return config.statusPath + op.id;
    }
    return config.statusOrigin.resolve(config.statusPath + op.id).toString();
  }

  /** Whether {@code r} is on a status URL. */
  boolean isStatusUrl(ReceivedRequest r) {
    return r.url().encodedPath().startsWith(config.statusPath);
  }

  /**
   * Answers a {@code GET} of a status URL: "processing" while polls are left, else the result;
   * {@code 404} for an unknown operation (or one {@link Fault#lostRecord()} drops). Takes the
   * lock.
   */
  Answer poll(ReceivedRequest r, @Nullable Fault fault) {
    String id = r.url().encodedPath().substring(config.statusPath.length());
    lock.lock();
    try {
      if (fault != null && fault.kind() == Fault.Kind.LOST_RECORD) {
        operations.remove(id);
      }
      Operation op = operations.get(id);
      if (op == null) {
        return Answer.json(404, "{\"error\":\"no operation " + JsonText.quote(id) + "\"}")
            .as(ServedAnswer.Kind.POLL);
      }
      completeIfDue(op);
      if (!op.done) {
        if (op.pollsLeft > 0) {
          op.pollsLeft--;
          return processing(config.pollStyle == PollStyle.ACCEPTED ? 202 : 200, op)
              .as(ServedAnswer.Kind.POLL);
        }
        complete(op);
      }
      return op.result.as(ServedAnswer.Kind.POLL);
    } finally {
      lock.unlock();
    }
  }

  /** Completes every processing operation now; returns how many. Takes the lock. */
  int completeAll() {
    lock.lock();
    try {
      int n = 0;
      for (Operation op : operations.values()) {
        if (!op.done) {
          complete(op);
          n++;
        }
      }
      return n;
    } finally {
      lock.unlock();
    }
  }

  /** How many operations still process, after completing those due. Takes the lock. */
  int pending() {
    lock.lock();
    try {
      int n = 0;
      for (Operation op : operations.values()) {
        completeIfDue(op);
        if (!op.done) {
          n++;
        }
      }
      return n;
    } finally {
      lock.unlock();
    }
  }
}
