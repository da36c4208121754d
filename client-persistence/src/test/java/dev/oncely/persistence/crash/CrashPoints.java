package dev.oncely.persistence.crash;

import dev.oncely.persistence.internal.CommitHalts;
import dev.oncely.persistence.internal.mapdb.MapDbHalts;

/**
 * The crash points a child JVM of the kill tests arms from the {@code -D} arguments its parent
 * started it with ({@link CommitHalts} at the engine's commit statement, {@link MapDbHalts}
 * inside the MapDB engine's own I/O). Every child main calls {@link #installFromSystemProperties}
 * before it opens a store; the engines themselves read no property.
 */
final class CrashPoints {
  private CrashPoints() {}

  /** Arms every crash point this JVM's system properties ask for. */
  static void installFromSystemProperties() {
    CommitHalts.installFromSystemProperties();
    MapDbHalts.installFromSystemProperties();
  }
}
