/**
 * Webhook receipt: every delivery's signature is verified on its raw bytes (constant-time, several
 * secrets at once for rotation, the timestamp checked in both directions) before anything is
 * stored, then the event is stored once in the {@link dev.oncely.server.inbox.Inbox} and the sender
 * gets its {@code 2xx}; the handler runs after the answer. Schemes: {@link
 * dev.oncely.server.webhook.StandardWebhooks}, {@link dev.oncely.server.webhook.StripeSignatures},
 * {@link dev.oncely.server.webhook.GitHubSignatures}, and {@link
 * dev.oncely.server.webhook.HmacSignatures} for a sender's own HMAC scheme. {@link
 * dev.oncely.server.webhook.WebhookReceiver} is the framework-neutral core; {@link
 * dev.oncely.server.servlet.WebhookServlet} serves it in any Servlet container.
 */
@NullMarked
package dev.oncely.server.webhook;

import org.jspecify.annotations.NullMarked;
