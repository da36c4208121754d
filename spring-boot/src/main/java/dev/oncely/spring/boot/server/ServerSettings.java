package dev.oncely.spring.boot.server;

import dev.oncely.client.Identifiers;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.ScopeResolver;
import dev.oncely.spring.boot.OncelyPropertyException;
import dev.oncely.spring.boot.internal.PropertySettings;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Turns {@code oncely.server.*} properties into the server half's settings so that every refusal
 * names the property ({@code oncely.server.endpoints[payments.create].lease must be 1 s to 1 h,
 * was PT0.5S}), never the builder setting behind it.
 */
final class ServerSettings {
  /** The prefix of {@code oncely.server.scope} that names a tenant header. */
  static final String HEADER_SCOPE = "header:";

  private ServerSettings() {}

  /**
   * Hands {@code value} of {@code property} to {@code setter}, the builder's {@code setting}.
   *
   * @throws OncelyPropertyException if the setter refuses the value
   */
  static <T> void set(String property, String setting, T value, Consumer<T> setter) {
    PropertySettings.set(property, setting, value, setter);
  }

  /**
   * The scope resolver {@code oncely.server.scope} names: {@code principal} or {@code
   * header:<Name>}.
   *
   * @throws OncelyPropertyException for any other value, or a header name that is not a token
   */
  static ScopeResolver scopeResolver(String scope) {
    String value = scope.trim();
    if (value.equalsIgnoreCase("principal")) {
      return ScopeResolver.principal();
    }
    if (value.toLowerCase(Locale.ROOT).startsWith(HEADER_SCOPE)) {
      String name = value.substring(HEADER_SCOPE.length()).trim();
      if (Identifiers.isToken(name)) {
        return ScopeResolver.header(name);
      }
      throw new OncelyPropertyException("oncely.server.scope", scope, "names the header \""
          + name + "\", which is not a header name", null);
    }
    throw new OncelyPropertyException("oncely.server.scope", scope,
        "must be principal or header:<Name>, was " + scope, null);
  }

  /** The endpoints' settings from the properties, on {@code endpoints}. */
  static void configure(IdempotentEndpoints.Builder endpoints, OncelyServerProperties properties) {
    endpoints.dialect(properties.getDialect());
    set("oncely.server.status-path", "statusPath", properties.getStatusPath(),
        endpoints::statusPath);
    if (properties.getInstance() != null) {
      set("oncely.server.instance", "instance", properties.getInstance(), endpoints::instance);
    }
  }

  /**
   * The policy of route {@code operation} in the property route table.
   *
   * @throws OncelyPropertyException naming the property whose value the policy refuses
   */
  static EndpointPolicy policy(String operation, OncelyServerProperties.Endpoint endpoint) {
    String prefix = "oncely.server.endpoints[" + operation + "].";
    EndpointPolicy.Builder[] policy = new EndpointPolicy.Builder[1];
    set("oncely.server.endpoints[" + operation + "]", "operation", operation,
        name -> policy[0] = EndpointPolicy.builder(name));
    EndpointPolicy.Builder b = policy[0];
    b.keyRequired(endpoint.isKeyRequired()).rerunSafe(endpoint.isRerunSafe());
    set(prefix + "in-progress-wait", "inProgressWait", endpoint.getInProgressWait(),
        b::inProgressWait);
    set(prefix + "retention", "retention", endpoint.getRetention(), b::retention);
    set(prefix + "lease", "lease", endpoint.getLease(), b::lease);
    set(prefix + "max-body-bytes", "maxBodyBytes", endpoint.getMaxBodyBytes(), b::maxBodyBytes);
    set(prefix + "volatile-fields", "volatileFields", endpoint.getVolatileFields(),
        b::volatileFields);
    if (endpoint.getReplayedHeaders() != null) {
      set(prefix + "replayed-headers", "replayedHeaders", endpoint.getReplayedHeaders(),
          b::replayedHeaders);
    }
    return b.build();
  }
}
