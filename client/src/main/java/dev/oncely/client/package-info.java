/**
 * The intent API: {@link dev.oncely.client.IdempotentClient} mints a key when a business intent is
 * born ({@link dev.oncely.client.IntentSpec}), stores key and body before the first send, retries
 * with the same key and answers with an {@link dev.oncely.client.IntentOutcome}. For plain OkHttp
 * code, {@link dev.oncely.client.IdempotencyInterceptor} does the same per request.
 *
 * <p>Every type in this package is null-marked (JSpecify): a parameter or return value is never
 * null unless it is annotated {@code @Nullable}.
 */
@NullMarked
package dev.oncely.client;

import org.jspecify.annotations.NullMarked;
