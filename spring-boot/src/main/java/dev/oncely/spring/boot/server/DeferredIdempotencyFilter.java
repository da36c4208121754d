package dev.oncely.spring.boot.server;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * The filter the servlet container holds from its start: it serves through the {@code
 * IdempotencyFilter} that {@link EndpointRouteTable} hands it once Spring MVC's handler mappings
 * have been read. Registering this one instead of the real filter keeps the creation of the web
 * server from opening the receipt store or reading the mappings early. A request that arrives
 * before the table is ready (the container started by hand, early) gets {@code 503} with {@code
 * Retry-After: 1}, never an unprotected run.
 */
final class DeferredIdempotencyFilter implements Filter {
  private volatile @Nullable Filter delegate;

  /** Serves every later request through {@code filter}. */
  void serve(Filter filter) {
    this.delegate = filter;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    Filter d = delegate;
    if (d != null) {
      d.doFilter(request, response, chain);
    } else if (response instanceof HttpServletResponse http) {
      http.setStatus(503);
      http.setHeader("Retry-After", "1");
    } else {
      throw new ServletException("the idempotent endpoints' routes are not read yet");
    }
  }
}
