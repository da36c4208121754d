package dev.oncely.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link OncelyPropertyException} as "APPLICATION FAILED TO START" with the property,
 * its value and what to change, instead of a stack trace. Registered in {@code
 * META-INF/spring.factories}.
 */
class OncelyFailureAnalyzer extends AbstractFailureAnalyzer<OncelyPropertyException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, OncelyPropertyException cause) {
    String description = "Oncely could not be configured: " + cause.getMessage()
        + (cause.value() == null ? "" : "\n\n    Property: " + cause.property()
            + "\n    Value: \"" + cause.value() + "\"");
    String action = "Change " + cause.property() + " in the application's configuration"
        + " (application.properties, the environment, ...). Every oncely.* property and its"
        + " default is listed in docs/spring.md.";
    return new FailureAnalysis(description, action, cause);
  }
}
