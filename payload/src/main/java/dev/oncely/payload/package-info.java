/**
 * The payload fingerprint rule: {@link dev.oncely.payload.Fingerprints} decides whether two
 * requests carry the same payload, the same way for the client (before a record is stored or
 * joined) and for a server (before an idempotency key's stored payload is compared). It depends on
 * jackson-core's streaming parser only and runs on Android API 24.
 *
 * <p>Every type in this package is null-marked (JSpecify): a parameter or return value is never
 * null unless it is annotated {@code @Nullable}.
 */
@NullMarked
package dev.oncely.payload;

import org.jspecify.annotations.NullMarked;
