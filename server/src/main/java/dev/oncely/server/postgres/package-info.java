/**
 * The server half on PostgreSQL: a receipt's recovery point written in the handler's own business
 * transaction ({@link dev.oncely.server.postgres.PostgresReceipts}), and an inbox message's
 * completion committed with its handler's effects ({@link
 * dev.oncely.server.postgres.PostgresInbox}), when the receipts or messages live in a {@link
 * dev.oncely.postgres.PostgresIntentStore} of the same database. Needs {@code
 * oncely-client-postgres} on the class path (an optional dependency of {@code oncely-server}).
 */
@NullMarked
package dev.oncely.server.postgres;

import org.jspecify.annotations.NullMarked;
