package dev.oncely.server;

import java.util.Objects;

/**
 * Names the tenant or actor a request's key belongs to. Two scopes never share a receipt, so two
 * tenants that send the same key are two requests, and one cannot read the other's answer. The
 * key alone never decides.
 */
@FunctionalInterface
public interface ScopeResolver {
  /**
   * The scope of {@code request}.
   *
   * @throws ScopeUnavailableException if the request names no scope this resolver accepts; the
   *     request is refused with {@code 400} (a tenant header missing) before anything is stored
   */
  String scopeOf(InboundRequest request);

  /**
   * The authenticated principal's name ({@code HttpServletRequest.getUserPrincipal()}, which is
   * Spring Security's {@code Authentication} when Spring Security runs), or {@code anonymous}
   * for a request without one: every anonymous caller then shares one scope, which only a
   * random key (as Oncely's client mints) keeps apart.
   */
  static ScopeResolver principal() {
    return request -> request.principal() == null ? "anonymous" : request.principal();
  }

  /**
   * The value of header {@code name} (a tenant id set by a gateway that authenticated the
   * caller); a request without it is refused.
   */
  static ScopeResolver header(String name) {
    Objects.requireNonNull(name, "name");
    return request -> {
      String value = request.header(name);
      if (value == null || value.isBlank()) {
        throw new ScopeUnavailableException("the request carries no " + name + " header");
      }
      return value.trim();
    };
  }
}
