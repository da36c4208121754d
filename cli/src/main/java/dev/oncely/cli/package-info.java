/**
 * The Oncely operator CLI and its one extension point. {@link dev.oncely.cli.OncelyCli} is the
 * entry point: {@code main} runs a command line and exits with one of its {@code EXIT_*} codes;
 * {@code commandLine} is the same command line for running in-process.
 * {@link dev.oncely.cli.StoreOpener} is how another store engine plugs in, named in
 * {@code META-INF/services/dev.oncely.cli.StoreOpener}: it opens a store with the operator's
 * {@link dev.oncely.cli.StoreCredentials}, reports {@link dev.oncely.cli.StoreNotFoundException},
 * {@link dev.oncely.cli.StoreUnreachableException} and
 * {@link dev.oncely.cli.StoreAccessDeniedException}, and may return a store that is a
 * {@link dev.oncely.cli.LeaseView}. The built-in MapDB, SQLite and PostgreSQL openers implement
 * the same interface; they are package-private, beside it.
 *
 * <p>The commands live in {@code dev.oncely.cli.internal}, which never imports this package: the
 * entry point builds them and passes in what they need.
 *
 * <p>Every type in this package is null-marked (JSpecify): a parameter or return value is never
 * null unless it is annotated {@code @Nullable}.
 */
@NullMarked
package dev.oncely.cli;

import org.jspecify.annotations.NullMarked;
