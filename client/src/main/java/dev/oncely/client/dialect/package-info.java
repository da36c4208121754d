/**
 * How a server spells idempotency: where the key goes and how it is written, what each answer
 * means, how replays are marked, how long keys are kept. {@link dev.oncely.client.dialect.Dialects}
 * holds the known dialects and a builder for others; the engine's own rules (no 5xx is a refusal,
 * redirects are judged, polls are polls) apply to every dialect.
 */
@NullMarked
package dev.oncely.client.dialect;

import org.jspecify.annotations.NullMarked;
