/**
 * What only a store implementer needs: the shared record format ({@link RecordCodec}), payload
 * encryption ({@link StoreEncryption}), a base for decorators ({@link ForwardingIntentStore}) and
 * the helpers every engine uses. The store interface itself, {@link
 * dev.oncely.client.IntentStore}, and the values it keeps ({@link dev.oncely.client.IntentRecord},
 * {@link dev.oncely.client.IntentId}, {@link dev.oncely.client.StoredResponse}) are in {@code
 * dev.oncely.client}, where apps find them. Implement the interface to keep intents somewhere
 * Oncely does not ship.
 *
 * <p>Every type in this package is null-marked (JSpecify): a parameter or return value is never
 * null unless it is annotated {@code @Nullable}.
 */
@NullMarked
package dev.oncely.client.spi;

import org.jspecify.annotations.NullMarked;
