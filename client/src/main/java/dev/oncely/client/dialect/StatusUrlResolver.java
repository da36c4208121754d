package dev.oncely.client.dialect;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.filter.FilteringParserDelegate;
import com.fasterxml.jackson.core.filter.JsonPointerBasedFilter;
import com.fasterxml.jackson.core.filter.TokenFilter;
import dev.oncely.client.StoredResponse;
import java.io.IOException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Finds the status URL of a {@code 202 Accepted} that has no {@code Location} or
 * {@code Content-Location} header, from its body. The engine resolves a relative result against the
 * submit URL and applies the same origin rules as to {@code Location}. Implementations are pure,
 * thread-safe and never throw; null means "no status URL".
 */
@FunctionalInterface
public interface StatusUrlResolver {
  /** Finds nothing: a {@code 202} without {@code Location} is resent with the same key. */
  StatusUrlResolver NONE = accepted -> null;

  /** The status URL (absolute, or relative to the submit URL) named by {@code accepted}, or null. */
  @Nullable String statusUrl(StoredResponse accepted);

  /**
   * Reads the string or number at JSON Pointer {@code pointer} of the body and puts it into
   * {@code template} in place of {@code {}}. For example {@code jsonPointer("/id",
   * "/v1/payments/{}")} turns {@code {"id":"p_42"}} into {@code /v1/payments/p_42}. The value is
   * percent-encoded as one path segment; an empty value, {@code .} or {@code ..} (which a URL reads
   * as this or the parent path, such as the collection of all payments) names no status URL.
   *
   * @throws IllegalArgumentException if the pointer is not a valid JSON Pointer or the template
   *     has no {@code {}}
   */
  static StatusUrlResolver jsonPointer(String pointer, String template) {
    Objects.requireNonNull(pointer, "pointer");
    Objects.requireNonNull(template, "template");
    JsonPointer compiled = JsonPointer.compile(pointer);
    if (!template.contains("{}")) {
      throw new IllegalArgumentException("template must contain {} where the value goes, was '"
          + template + "'");
    }
    JsonFactory json = new JsonFactory();
    return accepted -> {
      try (JsonParser parser = new FilteringParserDelegate(
          json.createParser(accepted.body()), new JsonPointerBasedFilter(compiled),
          TokenFilter.Inclusion.ONLY_INCLUDE_ALL, false)) {
        JsonToken token = parser.nextToken();
        if (token == JsonToken.VALUE_STRING || token == JsonToken.VALUE_NUMBER_INT) {
          String value = parser.getText();
          if (value.isEmpty() || value.equals(".") || value.equals("..")) {
            return null;
          }
          return template.replace("{}", okhttp3.HttpUrl.parse("http://x/").newBuilder()
              .addPathSegment(value).build().encodedPathSegments().get(0));
        }
        return null;
      } catch (IOException | RuntimeException e) {
        return null;
      }
    };
  }
}
