package dev.oncely.spring.boot.server;

import dev.oncely.server.HandlerContext;
import dev.oncely.server.ReceiptFencedException;
import dev.oncely.server.servlet.IdempotencyFilter;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * Records the recovery point of the idempotent request the current thread serves ("its effects
 * are committed; {@code reference} names what they created") when the effects really are
 * committed, so a handler that runs its business writes in a Spring transaction marks them
 * without knowing the receipt:
 *
 * <pre>{@code
 * @Transactional
 * public Order place(OrderRequest request) {
 *   Order order = orders.save(new Order(request));
 *   recoveryPoint.effectsCommitted(order.id());
 *   return order;
 * }
 * }</pre>
 *
 * <ul>
 *   <li>Inside a Spring-managed transaction ({@code @Transactional}, a {@code
 *       TransactionTemplate}; joined transactions count as the outermost one) on the DataSource of
 *       the starter's PostgreSQL receipt store ({@code oncely.server.store.engine=postgres}):
 *       written in that transaction, beside the business rows, so both commit or neither ({@code
 *       PostgresReceipts}); the core learns how it ended when it ends.
 *   <li>Inside any other Spring-managed transaction: recorded right after it commits, on the same
 *       thread, before the handler goes on; never if it rolls back (the receipt is then released
 *       or kept as the handler's end decides). One short write behind the effects: a process that
 *       dies between the two leaves the receipt processing without it, and the repeat after the
 *       lease follows the endpoint's {@code rerunSafe} (false: pending until recovered, never a
 *       blind second run).
 *   <li>Outside a transaction, or without spring-tx: recorded at once ({@link
 *       HandlerContext#effectsCommitted}).
 *   <li>Outside an idempotent request (no route served it, or it carries no key where none is
 *       required): nothing is recorded, as for an unprotected {@link HandlerContext}.
 * </ul>
 *
 * <p>Only the thread serving the request sees its receipt. One recovery point per transaction.
 * Thread-safe; one bean per application context.
 */
public final class TransactionalRecoveryPoint {
  private static final boolean TRANSACTIONS = ClassUtils.isPresent(
      "org.springframework.transaction.support.TransactionSynchronizationManager",
      TransactionalRecoveryPoint.class.getClassLoader());

  private final @Nullable TransactionalWrite inTransaction;

  /** A recovery point that records after the commit, or at once outside a transaction. */
  public TransactionalRecoveryPoint() {
    this(null);
  }

  /** A recovery point that writes in the transaction when {@code inTransaction} can. */
  TransactionalRecoveryPoint(@Nullable TransactionalWrite inTransaction) {
    this.inTransaction = inTransaction;
  }

  /**
   * The receipt context of the idempotent request the current thread serves.
   *
   * @return the context the idempotency filter put on the current request, or empty outside one
   */
  public Optional<HandlerContext> current() {
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    if (attributes instanceof ServletRequestAttributes servlet) {
      return Optional.ofNullable(IdempotencyFilter.context(servlet.getRequest()));
    }
    return Optional.empty();
  }

  /**
   * Records that the current request's effects are committed and {@code reference} names them:
   * in the current transaction when the receipts are there, else after it commits, or now outside
   * one.
   *
   * @param reference what the effects created (an order id), for the app's {@code
   *     ReceiptRecovery}
   * @throws NullPointerException if {@code reference} is null
   * @throws ReceiptFencedException if this run no longer owns its receipt (its lease ran out and a
   *     repeat took it over): written in the transaction, nothing was written and the transaction
   *     must roll back (let it propagate); recorded after the commit, it is thrown from the
   *     commit, after the effects committed
   * @throws IllegalStateException if another recovery point of this request is open in a
   *     transaction
   * @throws dev.oncely.client.StoreException if the receipt store failed; the recovery point may
   *     or may not be recorded
   */
  public void effectsCommitted(String reference) {
    Objects.requireNonNull(reference, "reference");
    Optional<HandlerContext> context = current();
    if (context.isEmpty() || !context.get().isProtected()) {
      return;
    }
    if (TRANSACTIONS && Transactions.active()) {
      if (inTransaction == null || !inTransaction.writeInTransaction(context.get(), reference)) {
        Transactions.recordAfterCommit(context.get(), reference);
      }
      return;
    }
    context.get().effectsCommitted(reference);
  }

  /** Spring's transaction synchronization; loaded only when spring-tx is on the classpath. */
  private static final class Transactions {
    private Transactions() {}

    /** Whether a transaction runs on this thread and takes synchronizations. */
    static boolean active() {
      return TransactionSynchronizationManager.isSynchronizationActive()
          && TransactionSynchronizationManager.isActualTransactionActive();
    }

    /** Registers the write for after the current transaction's commit. */
    static void recordAfterCommit(HandlerContext context, String reference) {
      TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
        @Override
        public void afterCommit() {
          context.effectsCommitted(reference);
        }
      });
    }
  }
}
