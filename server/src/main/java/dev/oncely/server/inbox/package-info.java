/**
 * The inbox: messages delivered at least once (webhooks, queue jobs) handled once. A message is
 * inserted once under (source, message id) on the store's unique constraint, with its raw bytes,
 * before the sender is answered; a duplicate, whatever state the first is in, is acknowledged the
 * same and never run again. Handlers run after the answer, on the inbox's workers, each message
 * under a lease with the same fencing as an inbound receipt (the record's revision), retried with
 * backoff on failure and dead-lettered after a configured number of failures. {@link
 * dev.oncely.server.inbox.Inbox} is the core; {@code dev.oncely.server.webhook} verifies senders'
 * signatures in front of it.
 */
@NullMarked
package dev.oncely.server.inbox;

import org.jspecify.annotations.NullMarked;
