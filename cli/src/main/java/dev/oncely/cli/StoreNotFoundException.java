package dev.oncely.cli;

import dev.oncely.client.StoreException;

/**
 * There is no store of the requested engine at the given location. The CLI never creates a store,
 * so nothing was written.
 */
public class StoreNotFoundException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception; the message names the location and the engine. */
  public StoreNotFoundException(String message) {
    super(message);
  }
}
