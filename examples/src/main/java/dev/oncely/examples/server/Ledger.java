package dev.oncely.examples.server;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's idempotency records: one per (scope, operation, key). {@link #reserve} is the
 * unique constraint: exactly one caller becomes the owner of a new record, atomically, before
 * any effect; everyone else gets the existing record. Records are kept for the server's lifetime.
 */
final class Ledger {
  private final ConcurrentHashMap<Id, Entry> entries = new ConcurrentHashMap<>();

  /** Creates the record for {@code id} unless one exists; the result says which happened. */
  Reservation reserve(Id id, String fingerprint) {
    Entry fresh = new Entry(fingerprint);
    Entry existing = entries.putIfAbsent(id, fresh);
    return existing == null ? new Reservation(fresh, true) : new Reservation(existing, false);
  }

  /** Frees a reservation whose processing failed before any effect. */
  void release(Id id) {
    entries.remove(id);
  }

  /** The record for a key, and whether this caller created it (and so owns the effect). */
  record Reservation(Entry entry, boolean owner) {}

  /** The unique-constraint columns. */
  record Id(String scope, String operation, String key) {}

  /**
   * One record: the payload fingerprint and, once completed, the reply to repeat. While
   * {@link #stored()} is null the first request is still processing.
   */
  static final class Entry {
    private final String fingerprint;
    private volatile String location;
    private volatile Reply stored;

    private Entry(String fingerprint) {
      this.fingerprint = fingerprint;
    }

    String fingerprint() {
      return fingerprint;
    }

    /** The status URL path of an accepted slow operation, or null. */
    String location() {
      return location;
    }

    void accepted(String location) {
      this.location = location;
    }

    Reply stored() {
      return stored;
    }

    void complete(Reply reply) {
      this.stored = reply;
    }
  }
}
