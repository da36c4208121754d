package dev.oncely.server.servlet;

import dev.oncely.server.EndpointPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Which requests are idempotent endpoints, and each one's {@link EndpointPolicy}: a method and a
 * path pattern per route, first match wins. A pattern is a path whose segments are literal, or
 * {@code {name}} for any one segment, optionally ending in {@code /**} for any rest. Immutable.
 */
public final class EndpointRoutes {
  private final List<Route> routes;

  private EndpointRoutes(List<Route> routes) {
    this.routes = List.copyOf(routes);
  }

  /** An empty table builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The policy of the first route matching {@code method} and {@code path}, or null. */
  public @Nullable EndpointPolicy match(String method, String path) {
    for (Route r : routes) {
      if (r.method.equals(method.toUpperCase(Locale.ROOT)) && r.matches(path)) {
        return r.policy;
      }
    }
    return null;
  }

  /** Every route's policy, in order. */
  public List<EndpointPolicy> policies() {
    List<EndpointPolicy> out = new ArrayList<>();
    routes.forEach(r -> out.add(r.policy));
    return out;
  }

  /** The policy for {@code operation}, or null. */
  public @Nullable EndpointPolicy byOperation(String operation) {
    for (Route r : routes) {
      if (r.policy.operation().equals(operation)) {
        return r.policy;
      }
    }
    return null;
  }

  private static final class Route {
    final String method;
    final String[] segments;
    final boolean anyRest;
    final EndpointPolicy policy;

    Route(String method, String pattern, EndpointPolicy policy) {
      this.method = method;
      String p = pattern;
      boolean rest = p.endsWith("/**");
      if (rest) {
        p = p.substring(0, p.length() - 3);
      }
      this.anyRest = rest;
      // "/" is the root path: no segments, as matches() reads the path "/".
      this.segments = p.isEmpty() || p.equals("/") ? new String[0]
          : p.substring(1).split("/", -1);
      this.policy = policy;
    }

    boolean matches(String path) {
      String[] parts = path.length() <= 1 ? new String[0] : path.substring(1).split("/", -1);
      if (anyRest ? parts.length < segments.length : parts.length != segments.length) {
        return false;
      }
      for (int i = 0; i < segments.length; i++) {
        String s = segments[i];
        boolean variable = s.startsWith("{") && s.endsWith("}");
        if (variable ? parts[i].isEmpty() : !s.equals(parts[i])) {
          return false;
        }
      }
      return true;
    }
  }

  /** Builds {@link EndpointRoutes}. Not thread-safe. */
  public static final class Builder {
    private final List<Route> routes = new ArrayList<>();

    Builder() {}

    /**
     * Serves {@code method} requests to paths matching {@code pattern} as {@code policy}'s
     * operation.
     *
     * @throws IllegalArgumentException if the method is not a token, the pattern does not start
     *     with {@code /}, or the operation is already routed with another policy
     */
    public Builder route(String method, String pattern, EndpointPolicy policy) {
      Objects.requireNonNull(policy, "policy");
      if (!dev.oncely.client.Identifiers.isToken(Objects.requireNonNull(method, "method"))) {
        throw new IllegalArgumentException("method must be an HTTP token, was " + method);
      }
      if (!Objects.requireNonNull(pattern, "pattern").startsWith("/")) {
        throw new IllegalArgumentException("a route pattern starts with /, was " + pattern);
      }
      for (Route r : routes) {
        if (r.policy.operation().equals(policy.operation()) && r.policy != policy) {
          throw new IllegalArgumentException("operation " + policy.operation()
              + " is routed twice with different policies");
        }
      }
      routes.add(new Route(method.toUpperCase(Locale.ROOT), pattern, policy));
      return this;
    }

    /** Returns the table. */
    public EndpointRoutes build() {
      return new EndpointRoutes(routes);
    }
  }
}
