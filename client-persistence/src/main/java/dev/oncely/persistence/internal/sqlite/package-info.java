/**
 * The SQLite engine behind {@code SqliteIntentStore} on the JDBC driver:
 * creating, verifying and upgrading the file, the writer's group-commit transaction, the reader
 * pool, error translation and the clean-close marker. Imports only from
 * {@code dev.oncely.persistence.internal} and the client, never from the MapDB engine.
 */
package dev.oncely.persistence.internal.sqlite;
