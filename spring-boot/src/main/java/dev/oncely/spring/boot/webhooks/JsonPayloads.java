package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.inbox.InboxMessage;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import org.springframework.beans.factory.BeanFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Parses payloads for handler methods that take a {@link JsonNode}, with the application's
 * Jackson mapper (Boot's {@code JsonMapper} bean) or Jackson's shared one. Loaded only when such
 * a method exists, so Jackson stays optional.
 */
final class JsonPayloads {
  /** The parameter type handler methods name. */
  static final String NODE = "tools.jackson.databind.JsonNode";

  private final BeanFactory beans;
  private volatile @Nullable ObjectMapper mapper;

  JsonPayloads(BeanFactory beans) {
    this.beans = beans;
  }

  /**
   * The payload parsed.
   *
   * @throws IllegalArgumentException if it is not JSON (a failed run); the message says where,
   *     never what: Jackson's would quote the payload, which the record keeps as the failure
   */
  JsonNode parse(InboxMessage message) {
    ObjectMapper m = mapper;
    if (m == null) {
      m = beans.getBeanProvider(ObjectMapper.class).getIfUnique(JsonMapper::shared);
      mapper = m;
    }
    try {
      return m.readTree(message.payload());
    } catch (JacksonException e) {
      TokenStreamLocation at = e.getLocation();
      throw new IllegalArgumentException("the payload of " + message + " is not JSON ("
          + e.getClass().getSimpleName() + (at == null ? "" : " at byte " + at.getByteOffset())
          + ")");
    }
  }
}
