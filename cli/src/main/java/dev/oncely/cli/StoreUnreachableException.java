package dev.oncely.cli;

import dev.oncely.client.StoreException;

/**
 * The store's server could not be reached (connection refused, timed out, host unknown, server
 * starting or shutting down). Nothing was read or written.
 */
public class StoreUnreachableException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception; the message names the server, never a password. */
  public StoreUnreachableException(String message, Throwable cause) {
    super(message, cause);
  }
}
