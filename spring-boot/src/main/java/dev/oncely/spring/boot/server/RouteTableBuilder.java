package dev.oncely.spring.boot.server;

import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.servlet.EndpointRoutes;
import dev.oncely.spring.boot.OncelyPropertyException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Collects the idempotent routes (from {@link IdempotentEndpoint} methods and the {@code
 * oncely.server.endpoints} properties) and the application's other handler mappings, then builds
 * an {@link EndpointRoutes} table that sends each request where Spring MVC would. The table
 * matches by method and path alone, first match wins; so every overlap must be one the table can
 * order:
 *
 * <ul>
 *   <li>two routes of one method may match the same path only if one matches a strict part of
 *       what the other matches (a literal where the other has a variable): that one is put first,
 *       as Spring prefers the more specific pattern;
 *   <li>a route may match a path of another handler method only if its pattern is strictly more
 *       specific, or the same pattern where the other mapping names no method and no other
 *       condition; and then only if the route's own mapping has no condition but method and path
 *       (params, headers, consumes, produces, version), since a request failing those conditions
 *       would reach the other handler through Spring but the route through the table.
 * </ul>
 *
 * Anything else is refused, naming both sides. A property route names no handler method, so it
 * is matched as written: the second rule applies to annotated routes only. Not thread-safe.
 */
final class RouteTableBuilder {
  private final List<Route> routes = new ArrayList<>();
  private final List<Other> others = new ArrayList<>();

  /**
   * One idempotent route.
   *
   * @param method the HTTP method, upper case
   * @param pattern the path pattern, under the servlet path
   * @param policy the endpoint's policy, one object per operation
   * @param source what declared it, for messages
   * @param property the property that declared it, or null for an annotation
   * @param narrowed whether its mapping has conditions besides method and path
   */
  record Route(String method, RoutePattern pattern, EndpointPolicy policy, String source,
      @Nullable String property, boolean narrowed) {}

  /**
   * A handler mapping that is not an idempotent endpoint.
   *
   * @param methods its HTTP methods, upper case; empty for every method
   * @param pattern its path pattern, approximated from above, under the servlet path
   * @param plain whether it has no condition besides method and path
   * @param source the handler method and mapping, for messages
   */
  record Other(Set<String> methods, RoutePattern pattern, boolean plain, String source) {}

  void route(Route route) {
    for (Route r : routes) {
      if (r.policy.operation().equals(route.policy.operation()) && r.policy != route.policy) {
        throw refusal(route, "routes operation " + route.policy.operation() + ", which "
            + r.source + " routes too with other settings; one operation has one policy");
      }
    }
    routes.add(route);
  }

  void other(Other other) {
    others.add(other);
  }

  /**
   * The table, more specific routes first.
   *
   * @throws EndpointRouteException for an overlap of an annotated route that cannot be ordered
   * @throws OncelyPropertyException for such an overlap of a property route
   */
  EndpointRoutes build() {
    for (int i = 0; i < routes.size(); i++) {
      Route a = routes.get(i);
      for (int j = i + 1; j < routes.size(); j++) {
        Route b = routes.get(j);
        if (a.method.equals(b.method) && a.policy != b.policy && a.pattern.overlaps(b.pattern)
            && !a.pattern.strictlyWithin(b.pattern) && !b.pattern.strictlyWithin(a.pattern)) {
          Route named = b.property != null || a.property == null ? b : a;
          Route before = named == b ? a : b;
          throw refusal(named, "routes " + named.method + " " + named.pattern + " as "
              + named.policy.operation() + ", and " + before.source + " routes "
              + before.method + " " + before.pattern + " as " + before.policy.operation()
              + ": both match some paths and neither is the more specific, so the table cannot"
              + " tell which operation a request is");
        }
      }
      if (a.property != null) {
        continue; // a property route names no handler: it is matched as written
      }
      for (Other o : others) {
        if ((o.methods.isEmpty() || o.methods.contains(a.method)) && a.pattern.overlaps(o.pattern)
            && !followsSpring(a, o)) {
          throw refusal(a, "routes " + a.method + " " + a.pattern + " as "
              + a.policy.operation() + ", which also matches requests Spring MVC sends to "
              + o.source + "; the table matches by method and path only and would run them as "
              + a.policy.operation() + ". Give the endpoints distinct paths");
        }
      }
    }
    EndpointRoutes.Builder table = EndpointRoutes.builder();
    for (Route r : ordered()) {
      table.route(r.method, r.pattern.toString(), r.policy);
    }
    return table.build();
  }

  /** Whether Spring MVC sends every request the route matches to the route's handler. */
  private static boolean followsSpring(Route route, Other other) {
    if (route.narrowed) {
      return false;
    }
    if (route.pattern.strictlyWithin(other.pattern)) {
      return true;
    }
    return route.pattern.within(other.pattern) && other.pattern.within(route.pattern)
        && other.methods.isEmpty() && other.plain;
  }

  /** The routes with every route before the ones that match a strict superset of its paths. */
  private List<Route> ordered() {
    List<Route> left = new ArrayList<>(routes);
    List<Route> out = new ArrayList<>();
    while (!left.isEmpty()) {
      for (int i = 0; i < left.size(); i++) {
        Route candidate = left.get(i);
        boolean narrowerLeft = false;
        for (Route r : left) {
          if (r != candidate && r.method.equals(candidate.method)
              && r.pattern.strictlyWithin(candidate.pattern)) {
            narrowerLeft = true;
            break;
          }
        }
        if (!narrowerLeft) {
          out.add(left.remove(i));
          break;
        }
      }
    }
    return out;
  }

  private static RuntimeException refusal(Route route, String reason) {
    if (route.property != null) {
      return new OncelyPropertyException(route.property, route.pattern, reason, null);
    }
    return new EndpointRouteException(route.source, reason, null);
  }
}
