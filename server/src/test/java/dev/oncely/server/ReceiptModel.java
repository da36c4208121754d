package dev.oncely.server;

import java.util.Arrays;

/**
 * A simple model of one key's receipt under the decision table, for {@link
 * ReceiptStateMachineProperties}: what each action must answer and where it leaves the receipt.
 * It knows nothing of the core's code: only the contract's rows.
 */
final class ReceiptModel {
  /** Which of two payloads a request carries (A has two byte forms with the same meaning). */
  enum Payload { A, B }

  /** What the handler does when it runs for an action. */
  enum Outcome {
    /** 201: stored, replayed. */
    ANSWER_2XX,
    /** 402, a business refusal: stored, replayed. */
    BUSINESS_4XX,
    /** 503: released. */
    SERVER_5XX,
    /** 429: released (try later). */
    PASSING_4XX,
    /** Throws before any effect: released. */
    THROW,
    /** Records the recovery point, then throws: pending. */
    COMMIT_THEN_THROW,
    /** Records the recovery point, then answers 500: pending. */
    COMMIT_THEN_5XX,
    /** Declares its outcome pending: 202. */
    PENDING,
    /** Its owner dies while it runs: the receipt stays processing under a lease. */
    DIE,
    /** Its owner dies after it recorded the recovery point. */
    COMMIT_THEN_DIE;

    boolean dies() {
      return this == DIE || this == COMMIT_THEN_DIE;
    }
  }

  /** What the app's recovery hook says if it is asked during an action. */
  enum Decision { ANSWER, RERUN, UNKNOWN }

  enum State { NONE, PROCESSING, COMPLETED, PENDING, RELEASED }

  /** What a request must get. */
  sealed interface Expected {}

  /** The handler runs (run number {@code run}) with {@code outcome} and its answer is sent. */
  record Ran(int run, Outcome outcome) implements Expected {}

  /** The stored answer, replayed. */
  record Replay(Answer answer) implements Expected {}

  /** 422: another payload. */
  record Mismatch() implements Expected {}

  /** 409: the first still runs. */
  record InProgress() implements Expected {}

  /** 202 + a status URL. */
  record Pending() implements Expected {}

  /** A stored answer: status and exact bytes. */
  record Answer(int status, byte[] body) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Answer a && a.status == status && Arrays.equals(a.body, body);
    }

    @Override
    public int hashCode() {
      return 31 * status + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
      return status + " " + new String(body, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  final boolean rerunSafe;
  final boolean recoverySet;
  State state = State.NONE;
  Payload holder;
  boolean leaseAlive;
  boolean effectsCommitted;
  /** The first answer stored; a completed receipt never changes it. */
  Answer stored;
  int runs;
  /** The run that holds a processing receipt (its owner died), or 0. */
  int dyingHolder;

  ReceiptModel(boolean rerunSafe, boolean recoverySet) {
    this.rerunSafe = rerunSafe;
    this.recoverySet = recoverySet;
  }

  /** The answer the handler gives on run {@code run} with {@code outcome}, if it answers. */
  static Answer handlerAnswer(int run, Outcome outcome) {
    return switch (outcome) {
      case ANSWER_2XX -> answer(201, "{\"run\":" + run + "}");
      case BUSINESS_4XX -> answer(402, "{\"run\":" + run + ",\"declined\":true}");
      case SERVER_5XX -> answer(503, "{\"run\":" + run + "}");
      case PASSING_4XX -> answer(429, "{\"run\":" + run + "}");
      case COMMIT_THEN_5XX -> answer(500, "{\"run\":" + run + "}");
      case PENDING -> answer(201, "{\"run\":" + run + ",\"pending\":true}");
      case DIE, COMMIT_THEN_DIE -> answer(201, "{\"late\":" + run + "}");
      case THROW, COMMIT_THEN_THROW -> null;
    };
  }

  /** The answer the recovery hook renders at step {@code step}. */
  static Answer recoveryAnswer(int step) {
    return answer(200, "{\"recovered\":" + step + "}");
  }

  /** The answer an operator settles with at step {@code step}. */
  static Answer settleAnswer(int step) {
    return answer(200, "{\"settled\":" + step + "}");
  }

  static Answer answer(int status, String json) {
    return new Answer(status, json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** A request with {@code payload}; the handler would do {@code outcome}, the hook {@code d}. */
  Expected request(Payload payload, Outcome outcome, Decision d, int step) {
    if (state == State.NONE) {
      holder = payload;
      return run(outcome);
    }
    if (payload != holder) {
      return new Mismatch();
    }
    return switch (state) {
      case COMPLETED -> new Replay(stored);
      case RELEASED -> run(outcome);
      case PENDING -> recoverySet ? recover(outcome, d, step) : new Pending();
      case PROCESSING -> {
        if (leaseAlive) {
          yield new InProgress();
        }
        dyingHolder = 0;
        if (effectsCommitted || !rerunSafe) {
          // Taken over as pending (after committed effects: to complete from the recovery point).
          state = State.PENDING;
          yield recoverySet ? recover(outcome, d, step) : new Pending();
        }
        yield run(outcome);
      }
      case NONE -> throw new AssertionError();
    };
  }

  /** An operator settles the key at {@code step}; whether it took. */
  boolean settle(int step) {
    if (state != State.PENDING) {
      return false;
    }
    complete(settleAnswer(step));
    return true;
  }

  void expireLease() {
    leaseAlive = false;
  }

  /**
   * The hook as a correct app writes it: it never says "run again" for a receipt whose effects
   * are committed.
   */
  Decision hookSays(Decision d) {
    return d == Decision.RERUN && effectsCommitted ? Decision.UNKNOWN : d;
  }

  private Expected recover(Outcome outcome, Decision d, int step) {
    return switch (hookSays(d)) {
      case ANSWER -> {
        complete(recoveryAnswer(step));
        yield new Replay(stored);
      }
      case RERUN -> run(outcome);
      case UNKNOWN -> new Pending();
    };
  }

  private Expected run(Outcome outcome) {
    runs++;
    effectsCommitted = false;
    dyingHolder = 0;
    switch (outcome) {
      case ANSWER_2XX, BUSINESS_4XX -> complete(handlerAnswer(runs, outcome));
      case SERVER_5XX, PASSING_4XX, THROW -> state = State.RELEASED;
      case COMMIT_THEN_THROW, COMMIT_THEN_5XX -> {
        state = State.PENDING;
        effectsCommitted = true;
      }
      case PENDING -> state = State.PENDING;
      case DIE, COMMIT_THEN_DIE -> {
        state = State.PROCESSING;
        leaseAlive = true;
        effectsCommitted = outcome == Outcome.COMMIT_THEN_DIE;
        dyingHolder = runs;
      }
    }
    return new Ran(runs, outcome);
  }

  private void complete(Answer answer) {
    state = State.COMPLETED;
    stored = answer;
  }
}
