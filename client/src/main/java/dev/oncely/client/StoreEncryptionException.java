package dev.oncely.client;


/**
 * A stored record could not be decrypted: the store was opened with another key than the one it
 * was written with, or without a key although it is encrypted. The file is left untouched.
 */
public class StoreEncryptionException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception; the message names the store and what to check. */
  public StoreEncryptionException(String message, Throwable cause) {
    super(message, cause);
  }
}
