/**
 * The store SPI: {@link dev.oncely.client.IntentStore} and the values it keeps
 * ({@link dev.oncely.client.IntentRecord}, {@link dev.oncely.client.IntentId},
 * {@link dev.oncely.client.StoredResponse}), with the shared record format and the helpers
 * every engine uses. Implement it to keep intents somewhere Oncely does not ship.
 *
 * <p>Every type in this package is null-marked (JSpecify): a parameter or return value is never
 * null unless it is annotated {@code @Nullable}.
 */
@NullMarked
package dev.oncely.client.spi;

import org.jspecify.annotations.NullMarked;
