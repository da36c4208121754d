/**
 * What happened while an intent was driven: {@link dev.oncely.client.event.IntentEvent}s delivered
 * to an {@link dev.oncely.client.event.IntentListener}. Events never carry keys, payloads or
 * header values, so they are safe to log, count and trace.
 *
 * <p>Every type in this package is null-marked (JSpecify): a parameter or return value is never
 * null unless it is annotated {@code @Nullable}.
 */
@NullMarked
package dev.oncely.client.event;

import org.jspecify.annotations.NullMarked;
