/**
 * The CLI's commands and helpers; not an API. Nothing here imports {@code dev.oncely.cli}: the
 * entry point passes in a {@link dev.oncely.cli.internal.CliContext}, whose
 * {@link dev.oncely.cli.internal.StoreEngines} opens stores, and commands end with an
 * {@link dev.oncely.cli.internal.ExitCode}.
 */
package dev.oncely.cli.internal;
