@file:JvmName("OncelyCoroutines")

package dev.oncely.kotlin

import dev.oncely.client.IdempotentClient
import dev.oncely.client.IntentOutcome
import dev.oncely.client.IntentSpec
import dev.oncely.client.InvalidIntentException
import dev.oncely.client.PayloadMismatchException
import kotlinx.coroutines.future.await

/**
 * Executes [spec] like [IdempotentClient.submit] and suspends until its outcome is stored, without
 * blocking a thread: the record is created and the intent driven on the client's executor (never
 * on the caller's dispatcher, so the main thread of an Android app never touches the store).
 *
 * Named `executeSuspending` because the blocking member [IdempotentClient.execute] would always
 * win over an extension of the same name.
 *
 * **Cancellation.** Cancelling the calling coroutine (a closed screen, a `withTimeout`) stops
 * *this caller's wait* and throws [kotlinx.coroutines.CancellationException], as Kotlin requires.
 * It never cancels the drive: another caller may share it (a second `executeSuspending` or
 * `submit` of the same intent, a resume), and an attempt that may have been delivered must never
 * be reported as failed. The drive goes on on the client's executor until the intent has an
 * outcome or the retry policy parks it `PENDING` (maybe delivered, same key), and stores what it
 * learned either way; read it later with [IdempotentClient.outcomeOf] or drive it again with
 * `client.resume(spec.id()).await()`, which reuses the stored key and bytes. Work that must stop
 * with the coroutine is bounded by the client's [dev.oncely.client.RetryPolicy] (its deadline),
 * or ended for every intent by [IdempotentClient.close] (drives park `PENDING`, resumable).
 *
 * @return the stored outcome: `Completed`, `Rejected`, `KeyConflict`, `Pending` (outcome not
 *   known yet, never a failure) or `NeedsReconciliation`
 * @throws PayloadMismatchException if the key (or business id) already has a record with another
 *   payload; nothing is sent
 * @throws InvalidIntentException if the spec sets the dialect's key header itself
 * @throws IllegalStateException if the client is closed
 * @throws kotlinx.coroutines.CancellationException if the calling coroutine is cancelled while it
 *   waits; the intent is unaffected
 */
public suspend fun IdempotentClient.executeSuspending(spec: IntentSpec): IntentOutcome =
  // submit() hands out a future of this caller's own: await() cancels only that future when the
  // coroutine is cancelled, never the shared drive behind it.
  submit(spec).await()
