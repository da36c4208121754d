package dev.oncely.spring.boot.server;

import dev.oncely.server.HandlerContext;
import dev.oncely.server.servlet.IdempotencyFilter;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Lets a handler method take the {@link HandlerContext} of the request it serves as a parameter
 * (outbound keys, the recovery point, pending): the one {@code IdempotencyFilter} put on the
 * request, or null for a request that no idempotent route served.
 */
final class HandlerContextArgumentResolver implements HandlerMethodArgumentResolver {
  @Override
  public boolean supportsParameter(MethodParameter parameter) {
    return parameter.getParameterType() == HandlerContext.class;
  }

  @Override
  public @Nullable Object resolveArgument(MethodParameter parameter,
      @Nullable ModelAndViewContainer mavContainer, NativeWebRequest webRequest,
      @Nullable WebDataBinderFactory binderFactory) {
    HttpServletRequest request = webRequest.getNativeRequest(HttpServletRequest.class);
    return request == null ? null : IdempotencyFilter.context(request);
  }
}
