package dev.oncely.client.internal.http;

import dev.oncely.client.InvalidIntentException;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import java.util.List;
import okhttp3.Request;

/**
 * The key an app set on an intercepted request itself, under its dialect's header or a known
 * dialect's: that key is the intent's, sent exactly as the app wrote it and never beside a second,
 * different key.
 */
final class AppKeys {
  /** Key headers of the built-in dialects, recognised on a request whatever dialect is set. */
  static final List<String> KNOWN_KEY_HEADERS = List.of(
      Dialects.ietf().keyHeader(), Dialects.paypal().keyHeader());

  private AppKeys() {}

  /** The header under which the app set a key itself: the dialect's, or a known dialect's. */
  static String headerOf(Request request, Dialect dialect) {
    String own = dialect.keyHeader();
    if (request.header(own) != null) {
      return own;
    }
    for (String name : KNOWN_KEY_HEADERS) {
      if (request.header(name) != null) {
        return name;
      }
    }
    return null;
  }

  /** The key in a header value the app wrote: a quoted Structured Field string or a plain token. */
  static String parse(String header, Dialect dialect) {
    String parsed = dialect.parseKey(header);
    String key = parsed != null ? parsed : header.trim();
    if (key.equals("\"\"")) {
      // An empty quoted string: every such call would share one intent.
      throw new InvalidIntentException("intent id", "key must not be blank");
    }
    if (key.length() >= 2 && key.startsWith("\"") && key.endsWith("\"")) {
      String unquoted = Dialects.ietf().parseKey(key);
      return unquoted != null ? unquoted : key;
    }
    return key;
  }
}
