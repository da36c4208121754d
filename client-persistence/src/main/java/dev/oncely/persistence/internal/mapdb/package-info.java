/**
 * The MapDB engine behind {@code MapDbIntentStore}: its journal (the commit
 * log), the one MapDB image and its private copy-on-write working view, the redo file and the
 * control file naming the image, recovery, checkpoints, the overlay of commits not yet applied, the in-memory due index,
 * and the test seams for its I/O ({@code FileIo}, {@code CommitCrashPoints}). Imports only from
 * {@code dev.oncely.persistence.internal} and the client, never from the SQLite engine.
 */
package dev.oncely.persistence.internal.mapdb;
