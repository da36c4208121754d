package dev.oncely.cli;

import dev.oncely.client.StoreException;

/**
 * The store's server refused the login: wrong or missing password, unknown user, or no permission
 * on the database or table. Nothing was read or written.
 */
public class StoreAccessDeniedException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception; the message names the user and server, never a password. */
  public StoreAccessDeniedException(String message, Throwable cause) {
    super(message, cause);
  }
}
