package dev.oncely.examples.load;

import dev.oncely.client.dialect.StatusUrlResolver;
import java.util.Objects;

/**
 * The load driver's {@code --status-url-pointer} and {@code --status-url-template}: checks each
 * value and builds the {@link StatusUrlResolver} from both. The client's {@link
 * StatusUrlResolver#jsonPointer} is the one judge of what a pointer is, and the one place that
 * reads the body and percent-encodes the value; the template is held to a stricter rule here, so
 * that the value can only ever land in the path of the target's origin.
 */
final class StatusUrlFromBody {
  private StatusUrlFromBody() {}

  /**
   * Returns {@code pointer}.
   *
   * @throws IllegalArgumentException naming the setting and the value if it is not a JSON Pointer
   */
  static String checkPointer(String pointer) {
    Objects.requireNonNull(pointer, "status-url-pointer");
    try {
      StatusUrlResolver.jsonPointer(pointer, "{}");
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("status-url-pointer must be a JSON Pointer such as /id,"
          + " was '" + pointer + "'", e);
    }
    return pointer;
  }

  /**
   * Returns {@code template}: an absolute path on the target's origin (one {@code /} first)
   * with {@code {}} in its path, never in its query or fragment, so that no value can move the
   * status URL to another origin or add query parameters.
   *
   * @throws IllegalArgumentException naming the setting and the value otherwise
   */
  static String checkTemplate(String template) {
    Objects.requireNonNull(template, "status-url-template");
    int queryOrFragment = template.length();
    for (char c : new char[] {'?', '#'}) {
      int at = template.indexOf(c);
      if (at >= 0) {
        queryOrFragment = Math.min(queryOrFragment, at);
      }
    }
    String path = template.substring(0, queryOrFragment);
    // OkHttp reads two slashes, or a slash and a backslash, as the start of an authority.
    boolean absolutePath = template.startsWith("/")
        && !(template.startsWith("//") || template.startsWith("/\\"));
    if (!absolutePath || !path.contains("{}") || template.indexOf("{}", queryOrFragment) >= 0) {
      throw new IllegalArgumentException("status-url-template must be "
          + LoadSettings.STATUS_URL_TEMPLATE_RULE + ", was '" + template + "'");
    }
    return template;
  }

  /**
   * The value at {@code pointer}, percent-encoded as one path segment, in place of {@code {}} in
   * {@code template}; no status URL when the value is missing, empty, not a string or number, or
   * {@code .} or {@code ..}.
   *
   * @throws IllegalArgumentException if either fails its check above
   */
  static StatusUrlResolver resolver(String pointer, String template) {
    return StatusUrlResolver.jsonPointer(checkPointer(pointer), checkTemplate(template));
  }
}
