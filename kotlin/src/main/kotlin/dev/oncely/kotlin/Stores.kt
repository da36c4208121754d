@file:JvmName("OncelyStores")

package dev.oncely.kotlin

import dev.oncely.client.IntentOutcome
import dev.oncely.client.IntentTag
import dev.oncely.client.IntentStore
import dev.oncely.client.StoreException

/**
 * The stored outcome of the intent [tag] names (its scope, operation and business id), read from
 * the store without I/O on the network; `null` when the store has no record of it (the call never
 * reached the interceptor, or was refused before its record was stored). An unfinished record
 * reads as [IntentOutcome.Pending].
 *
 * Deprecated: the store alone cannot tell an intent a drive in this process is running right now
 * from one another process drives, so such an intent reads as `DRIVEN_ELSEWHERE`. Ask the
 * interceptor or the client instead ([outcomeOrNull]), which read it as `IN_PROGRESS`.
 *
 * @throws IllegalArgumentException if [tag] has no business id (then only the call knew its key)
 * @throws StoreException if the store fails
 */
@Deprecated(
  "Reads the store alone: an intent a drive in this process is running reads as DRIVEN_ELSEWHERE. " +
    "Use interceptor.outcomeOrNull(tag) or client.outcomeOrNull(tag), which read it as IN_PROGRESS.",
)
public fun IntentStore.outcomeOf(tag: IntentTag): IntentOutcome? {
  val businessId = requireNotNull(tag.businessId()) {
    "$tag has no business id: its record can only be found by the key the call used"
  }
  return findByBusinessId(tag.scope(), tag.operation(), businessId)
    .map { IntentOutcome.of(it) }
    .orElse(null)
}
