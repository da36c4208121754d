package dev.oncely.client.internal;

import okhttp3.HttpUrl;
import org.jspecify.annotations.Nullable;

/**
 * {@link HttpUrl#parse} with a small cache of recently parsed URLs. Apps build an intent per
 * business event against a handful of endpoint URLs, and parsing one costs more than the rest of
 * building the spec; {@link HttpUrl} is immutable, so a parsed URL can be shared. Thread-safe:
 * slots hold immutable entries and are overwritten freely (a lost write costs one parse).
 */
public final class ParsedUrls {
  private static final int SLOTS = 64;
  private static final Entry[] CACHE = new Entry[SLOTS];

  private ParsedUrls() {}

  /** What {@code HttpUrl.parse(url)} returns: the parsed URL, or null if it is not http(s). */
  public static @Nullable HttpUrl parse(String url) {
    int slot = url.hashCode() & (SLOTS - 1);
    Entry e = CACHE[slot];
    if (e != null && e.text.equals(url)) {
      return e.url;
    }
    if (!httpScheme(url)) {
      // HttpUrl.parse refuses it too, but by throwing and catching an exception, which costs more
      // than building a whole record (a server receipt's URL is not http).
      return null;
    }
    HttpUrl parsed = HttpUrl.parse(url);
    if (parsed != null) {
      CACHE[slot] = new Entry(url, parsed);
    }
    return parsed;
  }

  /** Whether {@code url} starts (after the whitespace HttpUrl skips) with http: or https:. */
  private static boolean httpScheme(String url) {
    int i = 0;
    while (i < url.length() && url.charAt(i) <= ' ') {
      i++;
    }
    return url.regionMatches(true, i, "http:", 0, 5) || url.regionMatches(true, i, "https:", 0, 6);
  }

  /**
   * What {@code HttpUrl.get(url)} returns, from the cache.
   *
   * @throws IllegalArgumentException if {@code url} is not an http(s) URL
   */
  public static HttpUrl get(String url) {
    HttpUrl parsed = parse(url);
    if (parsed == null) {
      throw new IllegalArgumentException("not an http(s) URL");
    }
    return parsed;
  }

  private record Entry(String text, HttpUrl url) {}
}
