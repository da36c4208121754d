package dev.oncely.client;

import dev.oncely.client.internal.ParsedUrls;
import java.util.Objects;
import okhttp3.HttpUrl;

/**
 * The one check of what an identifier or a header name may hold, shared by every builder that
 * takes one ({@code IntentSpec}, {@code IntentTag}, {@code KeyStrategy}, {@link IntentId},
 * {@link IntentRecord}, dialects), so that nothing a later step would refuse (the store, OkHttp,
 * the wire) can be accepted and stored first.
 *
 * <ul>
 *   <li>Text ids (scope, operation, business id): not blank, at most
 *       {@value IntentId#MAX_PART_LENGTH} characters, no control character, and well-formed
 *       UTF-16 (no lone surrogate), so the UTF-8 the store and the key derivation see round-trips
 *       to the same string and two different ids never encode alike.
 *   <li>Keys: the above, and only visible ASCII ({@code !} to {@code ~}): what every dialect can
 *       put in a header, quoted or not.
 *   <li>Header names: RFC 9110 tokens (letters, digits and {@code !#$%&'*+-.^_`|~}); a
 *       {@code :} can never smuggle a second header or hide a credential header.
 *   <li>Methods: RFC 9110 tokens too, for every new intent; a stored record may hold any visible
 *       ASCII method (see {@link #checkStoredMethod}).
 *   <li>URLs: absolute http or https without user info ({@code user:password@}), which would be a
 *       credential stored in the record's readable part.
 * </ul>
 * Each check throws {@link IllegalArgumentException} naming the setting and the rule, never the
 * offending value (it may be a key).
 */
public final class Identifiers {
  private static final String TOKEN_SYMBOLS = "!#$%&'*+-.^_`|~";

  private Identifiers() {}

  /**
   * Returns {@code value} if it is a valid text id.
   *
   * @param what names the setting in the message
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if it is blank, too long, has a control character or a lone
   *     surrogate
   */
  public static String checkText(String what, String value) {
    Objects.requireNonNull(value, what);
    if (value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
    if (value.length() > IntentId.MAX_PART_LENGTH) {
      throw new IllegalArgumentException(
          what + " is " + value.length() + " characters; the limit is " + IntentId.MAX_PART_LENGTH);
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        throw new IllegalArgumentException(what + " contains a control character at index " + i);
      }
      if (Character.isHighSurrogate(c) && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(what + " contains a lone surrogate at index " + i
            + "; it is not well-formed UTF-16 and cannot be stored");
      }
    }
    return value;
  }

  /**
   * Returns {@code key} if it is a valid idempotency key.
   *
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if it is not a valid text id or holds a character outside
   *     visible ASCII
   */
  public static String checkKey(String what, String key) {
    checkText(what, key);
    int outside = firstOutsideVisibleAscii(key);
    if (outside >= 0) {
      throw new IllegalArgumentException(what + " holds a character a header cannot carry at"
          + " index " + outside + "; keys are visible ASCII ('!' to '~')");
    }
    return key;
  }

  /**
   * Whether {@code name} is an RFC 9110 token, as a header name and the method of every new intent
   * must be.
   */
  public static boolean isToken(String name) {
    if (name == null || name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean alphanumeric = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9';
      if (!alphanumeric && TOKEN_SYMBOLS.indexOf(c) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Returns {@code method} if a stored record may hold it: not empty and visible ASCII ({@code !}
   * to {@code ~}: no space or control character, so it cannot split the request line). That is
   * wider than {@link #isToken}, the rule for every new intent's method: records stored before
   * that rule held for the interceptor may hold the other method the app's request carried, and
   * reading a stored record must not fail (see {@link IntentRecord}).
   *
   * @throws NullPointerException if {@code method} is null
   * @throws IllegalArgumentException if it is empty or holds a character outside visible ASCII
   */
  static String checkStoredMethod(String what, String method) {
    Objects.requireNonNull(method, what);
    if (method.isEmpty() || firstOutsideVisibleAscii(method) >= 0) {
      throw new IllegalArgumentException(what + " must not be empty and only visible ASCII ('!' to"
          + " '~')");
    }
    return method;
  }

  private static int firstOutsideVisibleAscii(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '!' || c > '~') {
        return i;
      }
    }
    return -1;
  }

  /**
   * Returns {@code name} if it is a valid header name.
   *
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if it is not an RFC 9110 token
   */
  public static String checkHeaderName(String what, String name) {
    Objects.requireNonNull(name, what);
    if (!isToken(name)) {
      throw new IllegalArgumentException(what + " must be an HTTP token (letters, digits and"
          + " " + TOKEN_SYMBOLS + "; no ':' or space)");
    }
    return name;
  }

  /**
   * Returns {@code url} unless it is an http or https URL carrying user info.
   *
   * @throws IllegalArgumentException if it carries user info
   */
  public static String checkNoUserInfo(String what, String url) {
    HttpUrl parsed = ParsedUrls.parse(url);
    if (parsed != null && (!parsed.username().isEmpty() || !parsed.password().isEmpty())) {
      throw new IllegalArgumentException(what + " must not carry user info (user:password@):"
          + " it would be stored in clear; supply credentials from a HeaderProvider");
    }
    return url;
  }

  /**
   * Returns the parsed {@code url} if it is absolute http or https without user info.
   *
   * @throws NullPointerException if {@code url} is null
   * @throws IllegalArgumentException if it cannot be parsed or carries user info
   */
  public static HttpUrl checkUrl(String what, String url) {
    Objects.requireNonNull(url, what);
    HttpUrl parsed = ParsedUrls.parse(url);
    if (parsed == null) {
      throw new IllegalArgumentException(what + " must be an absolute http:// or https:// URL");
    }
    checkNoUserInfo(what, url);
    return parsed;
  }
}
