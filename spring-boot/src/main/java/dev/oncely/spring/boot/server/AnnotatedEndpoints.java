package dev.oncely.spring.boot.server;

import dev.oncely.server.EndpointPolicy;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

/**
 * Reads the routes of the {@link IdempotentEndpoint} handler methods from Spring MVC's handler
 * mappings (every {@link RequestMappingInfoHandlerMapping} bean, once the context's singletons
 * exist), and every other handler mapping for the overlap checks of {@link RouteTableBuilder}.
 * Loaded only when Spring MVC is on the classpath.
 */
final class AnnotatedEndpoints {
  private final Environment environment;
  private final @Nullable String servletPath;
  private final Map<String, IdempotentEndpoint> annotationByOperation = new HashMap<>();
  private final Map<String, EndpointPolicy> policyByOperation = new HashMap<>();
  private final Map<String, String> sourceByOperation = new HashMap<>();

  private AnnotatedEndpoints(Environment environment, @Nullable String servletPath) {
    this.environment = environment;
    this.servletPath = servletPath;
  }

  /**
   * Adds the routes and other mappings of every handler mapping in {@code beans} to {@code table}.
   *
   * @param servletPath the DispatcherServlet's path ({@code spring.mvc.servlet.path}), or null
   * @throws EndpointRouteException for an annotation or mapping the table cannot route
   */
  static void read(ListableBeanFactory beans, Environment environment,
      @Nullable String servletPath, RouteTableBuilder table) {
    AnnotatedEndpoints reader = new AnnotatedEndpoints(environment, servletPath);
    for (RequestMappingInfoHandlerMapping mapping
        : beans.getBeansOfType(RequestMappingInfoHandlerMapping.class).values()) {
      mapping.getHandlerMethods().forEach((info, handler) -> reader.add(info, handler, table));
    }
  }

  private void add(RequestMappingInfo info, HandlerMethod handler, RouteTableBuilder table) {
    Set<String> methods = new LinkedHashSet<>();
    info.getMethodsCondition().getMethods().forEach(m -> methods.add(m.name()));
    boolean plain = info.getParamsCondition().isEmpty() && info.getHeadersCondition().isEmpty()
        && info.getConsumesCondition().isEmpty() && info.getProducesCondition().isEmpty()
        && info.getVersionCondition().isEmpty() && info.getCustomCondition() == null;
    IdempotentEndpoint endpoint = handler.getMethodAnnotation(IdempotentEndpoint.class);
    String method = handler.getBeanType().getSimpleName() + "#" + handler.getMethod().getName();
    if (endpoint == null) {
      for (String pattern : info.getPatternValues()) {
        table.other(new RouteTableBuilder.Other(methods,
            RoutePattern.approximate(pattern).under(servletPath), plain,
            method + " (" + (methods.isEmpty() ? "any method" : String.join(", ", methods)) + " "
                + pattern + ")"));
      }
      return;
    }
    String source = "@IdempotentEndpoint on " + method;
    if (methods.isEmpty()) {
      throw new EndpointRouteException(source, "is mapped to every HTTP method; an idempotent"
          + " endpoint names its method (@PostMapping, @RequestMapping(method = POST))", null);
    }
    EndpointPolicy policy = policyOf(endpoint, source);
    for (String pattern : info.getPatternValues()) {
      RoutePattern route;
      try {
        route = RoutePattern.parse(pattern).under(servletPath);
      } catch (IllegalArgumentException e) {
        throw new EndpointRouteException(source, "is mapped to " + pattern + ", which the route"
            + " table cannot match as Spring MVC does: " + e.getMessage(), e);
      }
      for (String m : methods) {
        table.route(new RouteTableBuilder.Route(m, route, policy, source, null, !plain));
      }
    }
  }

  /** One policy object per operation, so the table sees a second method of it as the same. */
  private EndpointPolicy policyOf(IdempotentEndpoint endpoint, String source) {
    String operation = endpoint.operation();
    IdempotentEndpoint first = annotationByOperation.get(operation);
    if (first != null) {
      if (!first.equals(endpoint)) {
        throw new EndpointRouteException(source, "names operation " + operation + ", which "
            + sourceByOperation.get(operation) + " names with other attributes; one operation"
            + " has one policy", null);
      }
      return policyByOperation.get(operation);
    }
    EndpointPolicy policy = build(endpoint, source);
    annotationByOperation.put(operation, endpoint);
    policyByOperation.put(operation, policy);
    sourceByOperation.put(operation, source);
    return policy;
  }

  private EndpointPolicy build(IdempotentEndpoint endpoint, String source) {
    EndpointPolicy.Builder policy;
    try {
      policy = EndpointPolicy.builder(endpoint.operation());
    } catch (IllegalArgumentException e) {
      throw new EndpointRouteException(source, "names a refused operation: " + e.getMessage(), e);
    }
    policy.keyRequired(endpoint.keyRequired()).rerunSafe(endpoint.rerunSafe());
    set(source, "inProgressWait", duration(source, "inProgressWait", endpoint.inProgressWait()),
        policy::inProgressWait);
    set(source, "retention", duration(source, "retention", endpoint.retention()),
        policy::retention);
    set(source, "lease", duration(source, "lease", endpoint.lease()), policy::lease);
    set(source, "maxBodyBytes", endpoint.maxBodyBytes(), policy::maxBodyBytes);
    set(source, "volatileFields", List.of(endpoint.volatileFields()), policy::volatileFields);
    set(source, "replayedHeaders", List.of(endpoint.replayedHeaders()), policy::replayedHeaders);
    return policy.build();
  }

  private Duration duration(String source, String attribute, String text) {
    try {
      return DurationStyle.detectAndParse(environment.resolveRequiredPlaceholders(text).trim());
    } catch (IllegalArgumentException e) {
      throw new EndpointRouteException(source, "has " + attribute + " = \"" + text + "\", which"
          + " is not a duration (30s, 500ms, 24h, PT1M)", e);
    }
  }

  private static <T> void set(String source, String attribute, T value, Consumer<T> setter) {
    try {
      setter.accept(value);
    } catch (IllegalArgumentException e) {
      throw new EndpointRouteException(source, "is refused: " + e.getMessage(), e);
    }
  }
}
