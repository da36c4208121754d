package dev.oncely.server.postgres;

import dev.oncely.server.HandlerContext;
import dev.oncely.server.Receipt;
import org.jspecify.annotations.Nullable;

/**
 * A recovery point written in an open transaction by {@link PostgresReceipts#effectsCommittedIn},
 * waiting to be told how that transaction ended: {@link #committed()} after the commit, {@link
 * #rolledBack()} after the rollback, or {@link #close()} (rolled back unless {@code committed()}
 * was called), so it fits a try-with-resources block around the commit. Until then the core holds
 * its lease renewals of the receipt. The first end counts; for one handler thread.
 *
 * <p>When the commit's outcome is unknown (the connection broke during {@code COMMIT}), say rolled
 * back: if it did commit, the run's next write of the receipt is refused on the revision, and a
 * repeat completes the request from the recovery point; nothing runs twice either way.
 */
public final class RecoveryPoint implements AutoCloseable {
  /** The point of an unprotected request: nothing was written, nothing to tell. */
  static final RecoveryPoint NONE = new RecoveryPoint(null, null);

  private final @Nullable HandlerContext context;
  private final @Nullable Receipt written;
  private boolean ended;
  private boolean committed;

  RecoveryPoint(@Nullable HandlerContext context, @Nullable Receipt written) {
    this.context = context;
    this.written = written;
    this.ended = context == null;
  }

  /**
   * The transaction committed: the recovery point is the receipt's state now, and the request is
   * never run again.
   *
   * @throws IllegalStateException if this point was already told it rolled back
   */
  public void committed() {
    if (ended) {
      if (context != null && !committed) {
        throw new IllegalStateException("the recovery point was already told its transaction"
            + " rolled back");
      }
      return;
    }
    ended = true;
    committed = true;
    context.transactionalChangeEnded(written);
  }

  /**
   * The transaction rolled back (or its commit's outcome is unknown): the receipt stays as it was,
   * and the run may go on, or fail and release it.
   *
   * @throws IllegalStateException if this point was already told it committed
   */
  public void rolledBack() {
    if (ended) {
      if (committed) {
        throw new IllegalStateException("the recovery point was already told its transaction"
            + " committed");
      }
      return;
    }
    ended = true;
    context.transactionalChangeEnded(null);
  }

  /** Says rolled back unless {@link #committed()} or {@link #rolledBack()} was called. */
  @Override
  public void close() {
    if (!ended) {
      rolledBack();
    }
  }

  /** The receipt the transaction writes, or null for an unprotected request. */
  public @Nullable Receipt receipt() {
    return written;
  }
}
