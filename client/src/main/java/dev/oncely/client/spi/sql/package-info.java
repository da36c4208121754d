/**
 * The SQLite rulebook every Oncely SQLite engine follows, whatever reaches the file (JDBC on the
 * JVM, the framework's {@code android.database.sqlite} on Android), so a file has one format and
 * one meaning: the schema and its version ({@link dev.oncely.client.spi.sql.IntentTable}), the text
 * of every statement the engines run ({@link dev.oncely.client.spi.sql.IntentSql}), the column
 * values of a record ({@link dev.oncely.client.spi.sql.IntentRow}) and how a row is written and
 * read back verified ({@link dev.oncely.client.spi.sql.IntentRows},
 * {@link dev.oncely.client.spi.sql.UnfinishedStub}). Plain strings and pure Java: no JDBC or
 * Android type appears here, and every statement is one SQLite 3.9.2 (Android API 24) runs.
 *
 * <p>Every type in this package is null-marked (JSpecify): a parameter or return value is never
 * null unless it is annotated {@code @Nullable}.
 */
@NullMarked
package dev.oncely.client.spi.sql;

import org.jspecify.annotations.NullMarked;
