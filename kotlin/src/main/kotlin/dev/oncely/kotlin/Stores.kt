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
 * This is how a Retrofit `suspend` call learns what happened after its coroutine was cancelled
 * or the call failed: a `Pending` outcome is resumed with the same key by re-issuing the same
 * tagged call, or by [dev.oncely.client.IdempotencyInterceptor.resume] /
 * [dev.oncely.client.IdempotencyInterceptor.resumePending] (await their futures with
 * `kotlinx.coroutines.future.await`).
 *
 * @throws IllegalArgumentException if [tag] has no business id (then only the call knew its key)
 * @throws StoreException if the store fails
 */
public fun IntentStore.outcomeOf(tag: IntentTag): IntentOutcome? {
  val businessId = requireNotNull(tag.businessId()) {
    "$tag has no business id: its record can only be found by the key the call used"
  }
  return findByBusinessId(tag.scope(), tag.operation(), businessId)
    .map { IntentOutcome.of(it) }
    .orElse(null)
}
