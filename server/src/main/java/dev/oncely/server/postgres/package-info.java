/**
 * The server half on PostgreSQL: a receipt's recovery point written in the handler's own business
 * transaction ({@link dev.oncely.server.postgres.PostgresReceipts}), when the receipts live in a
 * {@link dev.oncely.postgres.PostgresIntentStore} of the same database. Needs {@code
 * oncely-client-postgres} on the class path (an optional dependency of {@code oncely-server}).
 */
@NullMarked
package dev.oncely.server.postgres;

import org.jspecify.annotations.NullMarked;
