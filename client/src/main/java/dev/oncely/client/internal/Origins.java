package dev.oncely.client.internal;

import java.util.Locale;
import java.util.Set;
import okhttp3.HttpUrl;

/**
 * The origin rule: credentials and stored headers go only to the intent's own origin (scheme, host
 * and port, RFC 6454), or to an origin the app listed explicitly. A switch from https to http is
 * another origin.
 */
public final class Origins {
  private Origins() {}

  /** Whether {@code a} and {@code b} have the same scheme, host and port. */
  public static boolean same(HttpUrl a, HttpUrl b) {
    return a.scheme().equals(b.scheme()) && a.host().equals(b.host()) && a.port() == b.port();
  }

  /** The origin of {@code url} as {@code scheme://host:port}, lower case. */
  public static String of(HttpUrl url) {
    return (url.scheme() + "://" + url.host() + ":" + url.port()).toLowerCase(Locale.ROOT);
  }

  /**
   * Whether a request to {@code target} for an intent whose URL is {@code intentUrl} may carry
   * credentials and stored headers: same origin, or {@code target}'s origin is in {@code allowed}
   * (origins in the form {@link #of}).
   */
  public static boolean mayCarryCredentials(HttpUrl intentUrl, HttpUrl target, Set<String> allowed) {
    return same(intentUrl, target) || allowed.contains(of(target));
  }

  /**
   * Parses an origin given by the app ({@code https://host} or {@code https://host:port}).
   *
   * @throws IllegalArgumentException if it is not an http(s) origin without path, query or user
   */
  public static String parse(String origin) {
    HttpUrl url = origin == null ? null : HttpUrl.parse(origin);
    if (url == null || !url.encodedPath().equals("/") || url.query() != null
        || url.fragment() != null || !url.username().isEmpty()) {
      throw new IllegalArgumentException("an origin is scheme://host[:port] with nothing after it,"
          + " was '" + origin + "'");
    }
    return of(url);
  }
}
