/**
 * An {@link dev.oncely.client.IntentStore} on PostgreSQL for fleets of instances: leases on due
 * work, fencing by record revision, intents written in the caller's own transaction. See
 * {@link dev.oncely.postgres.PostgresIntentStore} and {@code docs/persistence-postgres.md}.
 *
 * <p>Every type in this package is null-marked (JSpecify): a parameter or return value is never
 * null unless it is annotated {@code @Nullable}.
 */
@NullMarked
package dev.oncely.postgres;

import org.jspecify.annotations.NullMarked;
