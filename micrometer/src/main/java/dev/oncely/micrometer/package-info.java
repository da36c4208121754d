/**
 * Micrometer metrics for Oncely: {@link dev.oncely.micrometer.OncelyMetrics} turns the client's
 * event stream into counters and timers, {@link dev.oncely.micrometer.IntentStoreGauges} reports
 * the unfinished intents and the reconciliation backlog from the store, and
 * {@link dev.oncely.micrometer.TimedIntentStore} times the store's commits,
 * {@link dev.oncely.micrometer.OncelyServerMetrics} counts the server half's receipt events and
 * reports its unfinished receipts, and {@link dev.oncely.micrometer.OncelyInboxMetrics} counts the
 * inbox's events and the refused webhook deliveries and reports the unfinished messages (both need
 * {@code oncely-server}, an optional dependency). Tags
 * are bounded: never a key, scope value, business id, URL or payload. See {@code
 * docs/observability.md}.
 *
 * <p>Every type in this package is null-marked (JSpecify).
 */
@NullMarked
package dev.oncely.micrometer;

import org.jspecify.annotations.NullMarked;
