package dev.oncely.spring.boot.webhooks;

import java.util.Objects;

/**
 * The {@link WebhookHandler} beans cannot be routed: a handler names a source that is not
 * configured, two handle the same type of one source, a method takes a parameter the starter
 * cannot give, or an annotated bean is not an {@code InboxHandler}. Thrown at start-up, reported
 * as "APPLICATION FAILED TO START" naming the handler.
 */
public class WebhookHandlerException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String handler;

  /**
   * Creates the exception for {@code handler}.
   *
   * @param handler the handler method or bean, as the report names it
   * @param message what is wrong with it
   * @throws NullPointerException if an argument is null
   */
  public WebhookHandlerException(String handler, String message) {
    super(Objects.requireNonNull(message, "message"));
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  /**
   * The handler method or bean that cannot be routed.
   *
   * @return e.g. {@code com.example.Payments.succeeded(InboxMessage)}
   */
  public String handler() {
    return handler;
  }
}
