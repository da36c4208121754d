@file:JvmName("OncelyLookups")

package dev.oncely.kotlin

import dev.oncely.client.IdempotencyInterceptor
import dev.oncely.client.IdempotentClient
import dev.oncely.client.IntentIOException
import dev.oncely.client.IntentId
import dev.oncely.client.IntentOutcome
import dev.oncely.client.IntentRecord
import dev.oncely.client.IntentStore
import dev.oncely.client.IntentTag
import dev.oncely.client.StoreException

/*
 * One convention for look-ups: where Java answers "maybe nothing" with an Optional, Kotlin calls
 * the same look-up `...OrNull` and answers null. Nothing else changes: the same reading, the same
 * exceptions.
 */

/**
 * The stored outcome of intent [id], without I/O; `null` if the store has no such record. An
 * unfinished record reads as [IntentOutcome.Pending]: `IN_PROGRESS` while a drive of it runs in
 * this process (this client's, after its caller stopped waiting, too), else the reason its last
 * drive stopped with. Same as [IdempotentClient.outcomeOf].
 *
 * @throws StoreException if the store fails
 */
public fun IdempotentClient.outcomeOrNull(id: IntentId): IntentOutcome? = outcomeOf(id).orElse(null)

/**
 * The stored outcome of the intent [tag] names (its scope, operation and business id), without
 * I/O; `null` if the store has no record of it. Read as [outcomeOrNull] by id reads it.
 *
 * @throws IllegalArgumentException if [tag] has no business id (then only the call knew its key)
 * @throws StoreException if the store fails
 */
public fun IdempotentClient.outcomeOrNull(tag: IntentTag): IntentOutcome? = outcomeOf(tag).orElse(null)

/**
 * The stored outcome of the intent [tag] names, without I/O: how a Retrofit `suspend` call or an
 * `executeAsync()` learns what happened after its coroutine was cancelled or the call failed.
 * `null` when the store has no record of it (the call never reached the interceptor, or was
 * refused before its record was stored). An unfinished record reads as [IntentOutcome.Pending]:
 * `IN_PROGRESS` while a call of it runs in this process, else the reason its last drive stopped
 * with. Same as [IdempotencyInterceptor.outcomeOf].
 *
 * @throws IllegalArgumentException if [tag] has no business id
 * @throws IllegalStateException if the interceptor has no store
 * @throws StoreException if the store fails
 */
public fun IdempotencyInterceptor.outcomeOrNull(tag: IntentTag): IntentOutcome? = outcomeOf(tag).orElse(null)

/**
 * The stored outcome of intent [id], read as [outcomeOrNull] by tag reads it; `null` without a
 * record.
 *
 * @throws IllegalStateException if the interceptor has no store
 * @throws StoreException if the store fails
 */
public fun IdempotencyInterceptor.outcomeOrNull(id: IntentId): IntentOutcome? = outcomeOf(id).orElse(null)

/**
 * The outcome an interceptor call ended without knowing: [IntentOutcome.Pending] or
 * [IntentOutcome.NeedsReconciliation]; `null` for a refusal before anything was sent (payload
 * mismatch, body too large, invalid key) or a store failure. Same as [IntentIOException.outcome].
 */
public fun IntentIOException.outcomeOrNull(): IntentOutcome? = outcome().orElse(null)

/**
 * The record of intent [id], or `null` if the store has none. Same as [IntentStore.get].
 *
 * @throws StoreException if the store fails
 */
public fun IntentStore.getOrNull(id: IntentId): IntentRecord? = get(id).orElse(null)

/**
 * The record of the intent with [businessId] in [scope] and [operation], or `null` if the store
 * has none. Same as [IntentStore.findByBusinessId].
 *
 * @throws StoreException if the store fails
 */
public fun IntentStore.findByBusinessIdOrNull(scope: String, operation: String, businessId: String): IntentRecord? =
  findByBusinessId(scope, operation, businessId).orElse(null)
