package dev.oncely.client.internal;

import dev.oncely.client.IntentId;

/**
 * Request tag of a call the interceptor's resume issued for a stored record: the interceptor
 * continues exactly that record (its key, wire form and bytes) instead of deriving an identity.
 */
public record ResumedIntent(IntentId id) {}
