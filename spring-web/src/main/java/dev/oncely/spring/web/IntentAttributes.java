package dev.oncely.spring.web;

import dev.oncely.client.IntentTag;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Names the business intent of one {@code RestClient} call, as a request attribute, without a
 * header: {@code restClient.post().uri(..).attributes(IntentAttributes.of(tag)).body(..)}. The
 * {@link OncelyClientHttpRequestFactory} maps the attribute to the request's {@link IntentTag}, so
 * the {@link dev.oncely.client.IdempotencyInterceptor} (with a store) treats the call as a durable
 * intent: record and key stored before the first byte, the same key for the same business id after
 * a restart, a changed body refused before any I/O.
 *
 * <p>Attributes stay inside the client: nothing of the tag goes on the wire but the key the
 * interceptor adds. A {@code ClientHttpRequestInterceptor} may read or replace the attribute before
 * the factory sees it.
 */
public final class IntentAttributes {
  /** The attribute name under which the {@link IntentTag} travels. */
  public static final String NAME = IntentTag.class.getName();

  private IntentAttributes() {}

  /**
   * Returns a setter for {@code RestClient.RequestHeadersSpec.attributes(..)} that puts {@code tag}
   * under {@link #NAME}.
   *
   * @param tag the intent's identity (operation, scope, business id, key strategy)
   * @return a consumer of the request's attribute map
   * @throws NullPointerException if {@code tag} is null
   */
  public static Consumer<Map<String, Object>> of(IntentTag tag) {
    Objects.requireNonNull(tag, "tag");
    return attributes -> attributes.put(NAME, tag);
  }

  /**
   * The tag in {@code attributes}, or null when the call names no intent.
   *
   * @param attributes a request's attributes
   * @return the tag, or null
   * @throws IllegalArgumentException if the attribute holds something other than an {@link
   *     IntentTag}; nothing is sent
   */
  static IntentTag tagIn(Map<String, Object> attributes) {
    Object value = attributes.get(NAME);
    if (value == null || value instanceof IntentTag) {
      return (IntentTag) value;
    }
    throw new IllegalArgumentException("the request attribute " + NAME + " must be an IntentTag,"
        + " was a " + value.getClass().getName());
  }
}
