package dev.oncely.server;

/** Thrown by a {@link ScopeResolver} when a request names no scope it accepts. */
public final class ScopeUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An exception with {@code message}, which the {@code 400} answer shows. */
  public ScopeUnavailableException(String message) {
    super(message);
  }
}
