package dev.oncely.spring.boot.webhooks;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link WebhookHandlerException} as "APPLICATION FAILED TO START" with the handler and
 * what to change, instead of a stack trace. Registered in {@code META-INF/spring.factories}.
 */
class OncelyWebhookHandlerFailureAnalyzer
    extends AbstractFailureAnalyzer<WebhookHandlerException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, WebhookHandlerException cause) {
    String description = "Oncely could not route the webhook handlers: " + cause.getMessage();
    String action = "Change " + cause.handler() + ": a @WebhookHandler names a source configured"
        + " in oncely.webhooks.sources, each type of a source has one handler (and one handler"
        + " without types takes the others), a method takes only InboxMessage and JsonNode"
        + " parameters, and an annotated bean is an InboxHandler (docs/spring.md, \"Webhooks\").";
    return new FailureAnalysis(description, action, cause);
  }
}
