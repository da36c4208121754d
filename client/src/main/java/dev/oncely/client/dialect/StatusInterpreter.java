package dev.oncely.client.dialect;

import dev.oncely.client.StoredResponse;

/**
 * Reads a {@code 2xx} answer of a {@code 202}'s status URL: is the operation finished, or is the
 * status document saying "still processing" (for example {@code 200 {"status":"processing"}})?
 * A status URL's answer is about the status resource, never a refusal of the intent, so the only
 * choices are {@link PollState#DONE} and {@link PollState#PROCESSING}. Implementations are pure,
 * thread-safe, fast and never throw; an exception is treated as {@link PollState#PROCESSING}.
 */
@FunctionalInterface
public interface StatusInterpreter {
  /** Every {@code 2xx} other than {@code 202} means the operation finished. */
  StatusInterpreter ANY_2XX_IS_DONE = response -> PollState.DONE;

  /** What a {@code 2xx} poll answer (other than {@code 202}) says about the operation. */
  PollState interpret(StoredResponse pollAnswer);

  /** What a status document says. */
  enum PollState {
    /** The operation finished; the poll answer is the intent's result. */
    DONE,
    /** The operation is still running; keep polling the same status URL. */
    PROCESSING
  }
}
