package dev.oncely.server.servlet;

import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.InboundRequest;
import dev.oncely.server.ServerAnswer;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A Servlet filter that serves the routes of an {@link EndpointRoutes} table as idempotent
 * endpoints through {@link IdempotentEndpoints}, and {@code GET} on the endpoints' status path
 * (the status URLs of pending requests). Other requests pass through untouched. Routes and the
 * status path are matched below the application's context path, and the status URLs it writes in
 * {@code Location} carry that context path.
 *
 * <p>For a routed request the filter reads the body once (up to the endpoint's limit; a longer
 * one gets {@code 413} before anything runs), hands the application a request that reads the same
 * bytes and a response held in memory, and writes the answer the core decides: the handler's (as
 * it wrote it), a replay, or one of the core's own. The application reaches the receipt's {@link
 * HandlerContext} through {@link #context(ServletRequest)}. Register it after authentication
 * (Spring Security's filter chain) so the scope resolver sees the principal. Handlers answer
 * synchronously: an asynchronous request ({@code startAsync}) on a routed path is not supported.
 */
public final class IdempotencyFilter implements Filter {
  /** The request attribute that holds the running handler's {@link HandlerContext}. */
  public static final String CONTEXT_ATTRIBUTE = HandlerContext.class.getName();

  private final IdempotentEndpoints endpoints;
  private final EndpointRoutes routes;

  /** A filter serving {@code routes} through {@code endpoints}. */
  public IdempotencyFilter(IdempotentEndpoints endpoints, EndpointRoutes routes) {
    this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
    this.routes = Objects.requireNonNull(routes, "routes");
  }

  /**
   * The context of the handler {@code request} runs in, or null outside an idempotent endpoint.
   */
  public static @Nullable HandlerContext context(ServletRequest request) {
    return (HandlerContext) request.getAttribute(CONTEXT_ATTRIBUTE);
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    if (!(req instanceof HttpServletRequest request)
        || !(res instanceof HttpServletResponse response)) {
      chain.doFilter(req, res);
      return;
    }
    String path = pathOf(request);
    if (request.getMethod().equals("GET") && path.startsWith(endpoints.statusPath() + "/")) {
      serveStatus(request, response, path);
      return;
    }
    EndpointPolicy policy = routes.match(request.getMethod(), path);
    if (policy == null) {
      chain.doFilter(req, res);
      return;
    }
    byte[] body = RequestBodies.read(request, policy.maxBodyBytes());
    if (body == null) {
      write(endpoints.tooLarge(policy), request, response);
      return;
    }
    InboundRequest inbound = inbound(request, path, body);
    ServerAnswer answer;
    try {
      answer = endpoints.handle(inbound, policy, context -> {
        BufferedRequest buffered = new BufferedRequest(request, body);
        CapturedResponse captured = new CapturedResponse(response);
        buffered.setAttribute(CONTEXT_ATTRIBUTE, context);
        try {
          chain.doFilter(buffered, captured);
        } finally {
          buffered.removeAttribute(CONTEXT_ATTRIBUTE);
        }
        if (buffered.isAsyncStarted()) {
          throw new ServletException("an idempotent endpoint must answer synchronously; "
              + policy.operation() + " started async processing");
        }
        return captured.toAnswer();
      });
    } catch (IOException | ServletException | RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new ServletException(e);
    }
    write(answer, request, response);
  }

  private void serveStatus(HttpServletRequest request, HttpServletResponse response, String path)
      throws IOException {
    String rest = path.substring(endpoints.statusPath().length() + 1);
    int slash = rest.indexOf('/');
    ServerAnswer answer;
    if (slash <= 0 || slash == rest.length() - 1 || rest.indexOf('/', slash + 1) >= 0) {
      answer = ServerAnswer.of(404, Map.of(), new byte[0]);
    } else {
      String operation = URLDecoder.decode(rest.substring(0, slash), StandardCharsets.UTF_8);
      String token = rest.substring(slash + 1);
      answer = endpoints.status(inbound(request, path, new byte[0]), operation, token);
    }
    write(answer, request, response);
  }

  private static InboundRequest inbound(HttpServletRequest request, String path, byte[] body) {
    InboundRequest.Builder b = InboundRequest.builder(request.getMethod(), path).body(body);
    for (String name : Collections.list(request.getHeaderNames())) {
      for (String value : Collections.list(request.getHeaders(name))) {
        b.header(name, value);
      }
    }
    Principal principal = request.getUserPrincipal();
    return b.principal(principal == null ? null : principal.getName()).build();
  }

  private static String pathOf(HttpServletRequest request) {
    String uri = request.getRequestURI();
    String contextPath = request.getContextPath();
    return contextPath != null && !contextPath.isEmpty() && uri.startsWith(contextPath)
        ? uri.substring(contextPath.length()) : uri;
  }

  private void write(ServerAnswer answer, HttpServletRequest request,
      HttpServletResponse response) throws IOException {
    response.reset();
    response.setStatus(answer.status());
    // The core names status URLs from the application's root; the filter serves them relative
    // to the context, so under a context path (/shop) the Location must carry it.
    String contextPath = request.getContextPath() == null ? "" : request.getContextPath();
    String statusPrefix = endpoints.statusPath() + "/";
    for (Map.Entry<String, List<String>> e : answer.headers().entrySet()) {
      if (e.getKey().equalsIgnoreCase("Content-Length")) {
        continue;
      }
      boolean location = e.getKey().equalsIgnoreCase("Location");
      for (String value : e.getValue()) {
        response.addHeader(e.getKey(), location && !contextPath.isEmpty()
            && value.startsWith(statusPrefix) ? contextPath + value : value);
      }
    }
    byte[] body = answer.body();
    response.setContentLength(body.length);
    if (body.length > 0) {
      response.getOutputStream().write(body);
    }
    response.flushBuffer();
  }
}
