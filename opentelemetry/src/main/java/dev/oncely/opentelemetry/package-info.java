/**
 * OpenTelemetry tracing for Oncely: {@link dev.oncely.opentelemetry.OncelyTracing} records one
 * span per drive of an intent with its attempts as child spans (HTTP semantic conventions) and
 * propagates the attempt's context to the server. No attribute carries a key, scope value,
 * business id, URL or payload. See {@code docs/observability.md}.
 *
 * <p>Every type in this package is null-marked (JSpecify).
 */
@NullMarked
package dev.oncely.opentelemetry;

import org.jspecify.annotations.NullMarked;
