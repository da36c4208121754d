package dev.oncely.client;

import java.util.Locale;
import java.util.Set;

/**
 * Header names that carry credentials or session state. They are never written to a record: a
 * header provider adds them at send time instead (tokens expire across restarts anyway).
 */
public final class SecretHeaders {
  private static final Set<String> NAMES =
      Set.of("authorization", "proxy-authorization", "cookie", "set-cookie");

  private SecretHeaders() {}

  /** Whether {@code name} (any case) is a credential or cookie header. */
  public static boolean isSecret(String name) {
    return NAMES.contains(name.toLowerCase(Locale.ROOT));
  }
}
