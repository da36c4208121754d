/**
 * An {@link dev.oncely.client.spi.IntentStore} on PostgreSQL for fleets of instances: leases on due
 * work, fencing by record revision, intents written in the caller's own transaction. See
 * {@link dev.oncely.postgres.PostgresIntentStore} and {@code docs/persistence-postgres.md}.
 */
package dev.oncely.postgres;
