/**
 * What the durable engines share and nothing engine-specific: group commit ({@link
 * dev.oncely.persistence.internal.GroupCommitter}), the read cache kept behind commits, file
 * chores (owner-only files, durable renames, quarantine), the clean-close marker and the crash
 * points a kill test can hook into an engine's commit. The engines live in {@code .mapdb} and
 * {@code .sqlite}; they import from here, never the other way round, and never from each other.
 */
package dev.oncely.persistence.internal;
