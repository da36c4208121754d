package dev.oncely.spring.boot.webhooks;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Handles the webhook messages of one source, after they were verified, stored in the inbox and
 * acknowledged to the sender: on an inbox worker, under a lease, at least once per message and
 * again only after a failed run (see {@code InboxHandler} for what that asks of the handler).
 *
 * <p>On a <b>method</b> of a bean: the method handles the source's messages of the named types.
 * Its parameters are each an {@code InboxMessage} (the stored message: id, type, exact payload,
 * {@code outboundKey(step)}) or a Jackson {@code tools.jackson.databind.JsonNode} (the payload
 * parsed, with the application's JSON mapper; a payload that is not JSON fails the run). Returning
 * marks the message handled; throwing counts a failure (retried after a backoff, dead-lettered
 * after {@code oncely.webhooks.max-failures}).
 *
 * <pre>{@code
 * @Component
 * class Payments {
 *   @WebhookHandler(source = "stripe", type = "payment_intent.succeeded")
 *   void succeeded(InboxMessage message, JsonNode event) { ... }
 * }
 * }</pre>
 *
 * <p>On a <b>bean</b> that is an {@code InboxHandler} (its class, or its {@code @Bean} method):
 * the bean handles the source's messages of the named types.
 *
 * <p>Each message goes to the handler of its type, else to the source's handler without types
 * (every other type), else nowhere: it is marked handled with nothing done and a {@code DEBUG}
 * line, as senders ask of receivers (Stripe: acknowledge the event types you do not handle). A
 * source with no handler at all keeps its messages queued until one is added. Two handlers of
 * one type, or two without types, of one source, or a source that {@code oncely.webhooks.sources}
 * does not configure, fail the start naming the methods.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface WebhookHandler {
  /** The source's name, as configured in {@code oncely.webhooks.sources}. */
  String source();

  /**
   * The message types handled ({@code payment_intent.succeeded}, GitHub's {@code push}). Empty
   * (the default): every type no other handler of the source names.
   */
  String[] type() default {};
}
