package dev.oncely.server.internal;

import dev.oncely.client.StoredResponse;
import java.time.Duration;

/**
 * What a request that found its key already reserved must get: the one result of {@link
 * RepeatRules#decide}, which the core carries out and renders.
 */
public sealed interface Repeat {
  /** Another payload under the key: the dialect's mismatch answer; the receipt is untouched. */
  record Mismatch() implements Repeat {}

  /** The stored answer, byte for byte, marked as a replay. */
  record Replay(StoredResponse answer) implements Repeat {}

  /** The first request still runs under a live lease: come back after {@code retryAfter}. */
  record InProgress(Duration retryAfter) implements Repeat {}

  /** The outcome of an effect is unknown and nothing more can be learned now: {@code 202}. */
  record Pending() implements Repeat {}

  /**
   * Pending, and the app's recovery may know the answer: ask it; its decision is written by
   * compare-and-set.
   */
  record Recover() implements Repeat {}

  /** The reservation was released or its owner died on a re-runnable endpoint: run again. */
  record TakeOverAndRun() implements Repeat {}

  /**
   * The owner died after its effects were committed: hold the receipt, then complete it from
   * the recovery point (never run the effects again).
   */
  record TakeOverAndRecover() implements Repeat {}

  /** The owner died and its effects are unknown: hold the receipt as pending, then recover. */
  record TakeOverAsPending() implements Repeat {}
}
