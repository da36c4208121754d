package dev.oncely.spring.boot.server;

import dev.oncely.client.Identifiers;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.servlet.EndpointRoutes;
import dev.oncely.server.servlet.IdempotencyFilter;
import dev.oncely.spring.boot.OncelyPropertyException;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The idempotent endpoints' route table, built once every singleton exists (Spring MVC's handler
 * mappings have read the controllers by then, and the web server does not take requests yet): an
 * {@link EndpointRoutes} bean of the application's if there is one, else the {@code
 * oncely.server.endpoints} properties and the {@link IdempotentEndpoint} methods together
 * ({@link RouteTableBuilder} says which overlaps are refused). It then hands the {@link
 * IdempotencyFilter} to the {@link DeferredIdempotencyFilter} the container holds. A refusal fails
 * the start.
 */
final class EndpointRouteTable implements SmartInitializingSingleton {
  private static final Logger LOG = Logger.getLogger(EndpointRouteTable.class.getName());
  private static final String MVC =
      "org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping";

  private final ListableBeanFactory beans;
  private final Environment environment;
  private final OncelyServerProperties properties;
  private final IdempotentEndpoints endpoints;
  private final @Nullable EndpointRoutes appRoutes;
  private final DeferredIdempotencyFilter filter;
  private volatile @Nullable EndpointRoutes routes;

  EndpointRouteTable(ListableBeanFactory beans, Environment environment,
      OncelyServerProperties properties, IdempotentEndpoints endpoints,
      @Nullable EndpointRoutes appRoutes, DeferredIdempotencyFilter filter) {
    this.beans = beans;
    this.environment = environment;
    this.properties = properties;
    this.endpoints = endpoints;
    this.appRoutes = appRoutes;
    this.filter = filter;
  }

  @Override
  public void afterSingletonsInstantiated() {
    EndpointRoutes table = appRoutes != null ? appRoutes : build();
    routes = table;
    filter.serve(new IdempotencyFilter(endpoints, table));
    if (table.policies().isEmpty()) {
      LOG.warning("oncely.server.enabled is true but no idempotent endpoint is routed: no"
          + " @IdempotentEndpoint method and no oncely.server.endpoints property");
    } else {
      LOG.info(() -> "Oncely serves idempotent operations "
          + table.policies().stream().map(EndpointPolicy::operation).distinct().toList()
          + " in the " + endpoints.dialect().name().toLowerCase(Locale.ROOT) + " dialect");
    }
  }

  /**
   * The table the filter serves.
   *
   * @throws IllegalStateException before the context's singletons exist
   */
  EndpointRoutes routes() {
    EndpointRoutes r = routes;
    if (r == null) {
      throw new IllegalStateException("the route table is built once every singleton exists");
    }
    return r;
  }

  private EndpointRoutes build() {
    RouteTableBuilder table = new RouteTableBuilder();
    for (Map.Entry<String, OncelyServerProperties.Endpoint> e
        : properties.getEndpoints().entrySet()) {
      table.route(propertyRoute(e.getKey(), e.getValue()));
    }
    if (ClassUtils.isPresent(MVC, getClass().getClassLoader())) {
      AnnotatedEndpoints.read(beans, environment,
          environment.getProperty("spring.mvc.servlet.path"), table);
    }
    return table.build();
  }

  private static RouteTableBuilder.Route propertyRoute(String operation,
      OncelyServerProperties.Endpoint endpoint) {
    String prefix = "oncely.server.endpoints[" + operation + "].";
    EndpointPolicy policy = ServerSettings.policy(operation, endpoint);
    String method = endpoint.getMethod().trim().toUpperCase(Locale.ROOT);
    if (!Identifiers.isToken(method)) {
      throw new OncelyPropertyException(prefix + "method", endpoint.getMethod(),
          "must be an HTTP method, was " + endpoint.getMethod(), null);
    }
    String path = endpoint.getPath();
    if (path == null || !path.startsWith("/")) {
      throw new OncelyPropertyException(prefix + "path", path, "must be a path pattern starting"
          + " with /, was " + path, null);
    }
    RoutePattern pattern;
    try {
      pattern = RoutePattern.parse(path);
    } catch (IllegalArgumentException e) {
      throw new OncelyPropertyException(prefix + "path", path, "cannot be routed: "
          + e.getMessage(), e);
    }
    return new RouteTableBuilder.Route(method, pattern, policy,
        "oncely.server.endpoints[" + operation + "]", prefix + "path", false);
  }
}
