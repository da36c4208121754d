package dev.oncely.server;

import java.util.Objects;

/**
 * Something the server half did with one receipt, for metrics and logs. Carries the operation and
 * the key's safe hash ({@link dev.oncely.client.IntentId#safeKey()}), never the key or payload.
 *
 * @param kind what happened
 * @param operation the endpoint's operation
 * @param safeKey a short one-way hash of the key
 */
public record ReceiptEvent(Kind kind, String operation, String safeKey) {
  /** Checks the components. */
  public ReceiptEvent {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(safeKey, "safeKey");
  }

  /** What happened. */
  public enum Kind {
    /** The key was reserved and the handler started. */
    RESERVED,
    /** A repeat got the stored answer. */
    REPLAYED,
    /** A repeat carried another payload under the key. */
    MISMATCH,
    /** A repeat arrived while the first ran and was told to come back. */
    IN_PROGRESS,
    /** A repeat found the receipt pending and got {@code 202}. */
    PENDING_ANSWERED,
    /** A repeat took over a receipt whose owner's lease ran out. */
    TAKEN_OVER,
    /** The handler's answer was stored. */
    COMPLETED,
    /** The handler failed before any committed effect; the key was given back. */
    RELEASED,
    /** The receipt went pending: an effect's outcome is unknown. */
    PENDING,
    /** A pending or dead owner's receipt was settled by recovery. */
    RECOVERED,
    /** The owner lost its receipt to a takeover while its handler ran (a frozen owner). */
    FENCED_OUT
  }
}
