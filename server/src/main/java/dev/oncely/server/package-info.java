/**
 * The server half: idempotent endpoints. A request carrying an idempotency key reserves (scope,
 * operation, key) on the store's unique constraint before the handler runs; a repeat is answered
 * by the receipt's state (the stored answer replayed, {@code 409} while the first runs, {@code 202}
 * while an effect's outcome is unknown, {@code 422} for another payload under the same key).
 * {@link dev.oncely.server.IdempotentEndpoints} is the framework-neutral core, {@link
 * dev.oncely.server.servlet.IdempotencyFilter} puts it in front of any Servlet application, and
 * {@link dev.oncely.server.ReceiptStore} keeps receipts on any of the client's {@link
 * dev.oncely.client.IntentStore} engines, with the same record format, key hashing and sealing.
 */
@NullMarked
package dev.oncely.server;

import org.jspecify.annotations.NullMarked;
