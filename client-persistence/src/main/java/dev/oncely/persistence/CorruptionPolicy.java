package dev.oncely.persistence;

/** What opening a store does when its files fail verification. */
public enum CorruptionPolicy {
  /** Throw {@code StoreCorruptedException} naming the path; touch nothing. The default. */
  FAIL,
  /**
   * Move the damaged files aside as {@code <name>.corrupt-<timestamp>}, start with an empty store
   * and tell the {@link StoreOptions.Builder#onQuarantine quarantine listener} what was set aside.
   * Nothing is deleted.
   */
  QUARANTINE
}
