/**
 * Webhooks in Spring Boot: {@link dev.oncely.spring.boot.webhooks.OncelyWebhooksAutoConfiguration}
 * verifies deliveries to {@code POST <oncely.webhooks.path>/<source>} with each source's scheme,
 * stores them once in a durable inbox before answering {@code 200}, and runs the application's
 * {@link dev.oncely.spring.boot.webhooks.WebhookHandler}s on the inbox's workers, configured by
 * the {@code oncely.webhooks.*} {@link dev.oncely.spring.boot.webhooks.OncelyWebhooksProperties}.
 * See {@code docs/spring.md}, "Webhooks".
 *
 * <p>Every type in this package is null-marked (JSpecify).
 */
@NullMarked
package dev.oncely.spring.boot.webhooks;

import org.jspecify.annotations.NullMarked;
