package dev.oncely.spring.boot.server;

import dev.oncely.server.ReceiptStore;
import org.jspecify.annotations.Nullable;

/** Which {@link TransactionalWrite} reaches a receipt store, if any (the PostgreSQL one's). */
interface ReceiptTransactions {
  /** The write for {@code receipts}, or null when it is not a store this knows. */
  @Nullable TransactionalWrite writeFor(ReceiptStore receipts);
}
