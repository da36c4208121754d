/**
 * The Oncely operator CLI ({@link dev.oncely.cli.OncelyCli}) and its one extension point,
 * {@link dev.oncely.cli.StoreOpener}, through which more store engines plug in.
 */
package dev.oncely.cli;
