package dev.oncely.cli;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The password a database engine logs in with, read by the CLI from a file or an environment
 * variable, never from the command line. File engines ignore it. {@link #toString()} never prints
 * the password.
 */
public final class StoreCredentials {
  private static final StoreCredentials NONE = new StoreCredentials(null);

  private final char @Nullable [] password;

  private StoreCredentials(char @Nullable [] password) {
    this.password = password;
  }

  /** No password: the engine logs in without one (trust, peer or certificate authentication). */
  public static StoreCredentials none() {
    return NONE;
  }

  /**
   * A password; {@code password} is copied.
   *
   * @throws IllegalArgumentException if it is empty
   */
  public static StoreCredentials password(char[] password) {
    if (password.length == 0) {
      throw new IllegalArgumentException("the password is empty");
    }
    return new StoreCredentials(password.clone());
  }

  /** A copy of the password, or null when there is none. */
  public char @Nullable [] password() {
    return password == null ? null : password.clone();
  }

  /** Whether there is a password. */
  public boolean hasPassword() {
    return password != null;
  }

  @Override
  public String toString() {
    return password == null ? "StoreCredentials{none}" : "StoreCredentials{password=<redacted>}";
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof StoreCredentials other && Arrays.equals(password, other.password);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(password);
  }
}
