package dev.oncely.spring.boot.server;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link EndpointRouteException} as "APPLICATION FAILED TO START" with the handler
 * method and what to change, instead of a stack trace. Registered in {@code
 * META-INF/spring.factories}.
 */
class OncelyRouteFailureAnalyzer extends AbstractFailureAnalyzer<EndpointRouteException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, EndpointRouteException cause) {
    String description = "Oncely could not route the idempotent endpoints: "
        + cause.getMessage();
    String action = "Change " + cause.source() + " so that its route is one the table follows"
        + " exactly: an HTTP method (@PostMapping), whole-segment path variables without regular"
        + " expressions, ** only at the end, and no other handler method of the same method on"
        + " paths it matches (docs/spring.md, \"Idempotent endpoints\").";
    return new FailureAnalysis(description, action, cause);
  }
}
