@file:JvmName("OncelyResume")

package dev.oncely.kotlin

import dev.oncely.client.IdempotencyInterceptor
import dev.oncely.client.IdempotentClient
import dev.oncely.client.IntentId
import dev.oncely.client.IntentOutcome
import dev.oncely.client.StoreException
import java.util.concurrent.CompletableFuture
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.channelFlow
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import okhttp3.Call

/**
 * Drives the stored record of [id] once more, like [IdempotentClient.resume], and suspends until
 * its outcome is stored, without blocking a thread. Joins a drive of the same intent already
 * running (single flight); a finished record answers at once, without I/O.
 *
 * Cancelling the calling coroutine stops this caller's wait only, never the drive (as for
 * [executeSuspending]): read what it learned later with [outcomeOrNull].
 *
 * @throws StoreException if the store has no such record or fails
 * @throws IllegalStateException if the client is closed
 */
public suspend fun IdempotentClient.resumeSuspending(id: IntentId): IntentOutcome = resume(id).await()

/**
 * Drives every unfinished record of the client's store again, like
 * [IdempotentClient.resumePending] (after a restart), and emits each intent's stored outcome as
 * its drive ends, in the order the drives end. Cold: nothing is resumed until the flow is
 * collected, and each collection resumes the records unfinished at that moment. Completes once
 * every drive has ended.
 *
 * Cancelling the collector stops its waits only; the drives go on in the client until each
 * intent has an outcome or parks `PENDING`.
 *
 * @throws StoreException when collected, if the store cannot list the records
 * @throws IllegalStateException when collected, if the client is closed
 */
public fun IdempotentClient.resumePendingFlow(): Flow<IntentOutcome> = outcomesOf { resumePending() }

/**
 * Drives the stored record of [id] once more through [client] (the app's own client with this
 * interceptor in it), like [IdempotencyInterceptor.resume], and suspends until its outcome is
 * stored. A finished record, or one that needs reconciliation, answers at once and sends nothing.
 * Cancelling the calling coroutine stops this wait only, never the call.
 *
 * @throws StoreException if the store has no such record
 * @throws IllegalStateException if the interceptor has no store
 */
public suspend fun IdempotencyInterceptor.resumeSuspending(client: Call.Factory, id: IntentId): IntentOutcome =
  resume(client, id).await()

/**
 * Drives every unfinished record of the interceptor's store again through [client] (the app's own
 * client with this interceptor in it), like [IdempotencyInterceptor.resumePending], and emits each
 * intent's stored outcome as its call ends, in the order the calls end. Cold: nothing is resumed
 * until the flow is collected. Completes once every call has ended.
 *
 * Cancelling the collector stops its waits only; the resumed calls go on.
 *
 * @throws StoreException when collected, if the store cannot list the records, or when a record
 *   cannot be read back (the other calls go on)
 * @throws IllegalStateException when collected, if the interceptor has no store
 */
public fun IdempotencyInterceptor.resumePendingFlow(client: Call.Factory): Flow<IntentOutcome> =
  outcomesOf { resumePending(client) { } }

/** The outcomes of the futures [start] returns, each sent as it completes. */
private fun outcomesOf(start: () -> List<CompletableFuture<IntentOutcome>>): Flow<IntentOutcome> =
  channelFlow {
    for (future in start()) {
      // await() cancels only this caller's future when the collector is cancelled.
      launch { send(future.await()) }
    }
  }
