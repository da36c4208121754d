package dev.oncely.postgres;

import dev.oncely.client.StoreException;

/**
 * The database could not be reached (connection refused or lost, server shutting down or starting,
 * pool timeout). The call changed nothing it can vouch for: a write that failed this way may or may
 * not have committed, and the driver treats it like any store failure (the intent stays unfinished
 * and is driven again once the database is back).
 */
public class DatabaseUnavailableException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message naming the store and the operation, and its cause. */
  public DatabaseUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
