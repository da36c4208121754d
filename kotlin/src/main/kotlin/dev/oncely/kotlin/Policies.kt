@file:JvmName("OncelyPolicies")

package dev.oncely.kotlin

import dev.oncely.client.DriveSettingsBuilder
import dev.oncely.client.IdempotencyInterceptor
import dev.oncely.client.IdempotentClient
import dev.oncely.client.RetryPolicy
import kotlin.time.Duration
import kotlin.time.toJavaDuration

/**
 * Builds a [RetryPolicy] with the Java builder as receiver; with `kotlin.time` durations it reads
 * as the settings it holds:
 *
 * ```
 * val policy = retryPolicy {
 *   maxAttempts(4)
 *   baseDelay(100.milliseconds)
 *   deadline(30.seconds)
 * }
 * ```
 *
 * Every setting is checked exactly as in Java.
 *
 * @throws IllegalArgumentException if a setting is refused, or the base delay is above the maximum
 */
public inline fun retryPolicy(block: RetryPolicy.Builder.() -> Unit): RetryPolicy =
  RetryPolicy.builder().apply(block).build()

/**
 * Sets the base delay of the exponential backoff.
 *
 * @throws IllegalArgumentException if it is negative
 */
public fun RetryPolicy.Builder.baseDelay(delay: Duration): RetryPolicy.Builder = baseDelay(delay.toJavaDuration())

/**
 * Sets the cap of a single wait, `Retry-After` included.
 *
 * @throws IllegalArgumentException if it is negative
 */
public fun RetryPolicy.Builder.maxDelay(delay: Duration): RetryPolicy.Builder = maxDelay(delay.toJavaDuration())

/**
 * Sets the overall deadline of one drive.
 *
 * @throws IllegalArgumentException if it is zero or negative
 */
public fun RetryPolicy.Builder.deadline(deadline: Duration): RetryPolicy.Builder = deadline(deadline.toJavaDuration())

/**
 * Sets the timeout of one attempt.
 *
 * @throws IllegalArgumentException if it is zero or negative
 */
public fun RetryPolicy.Builder.attemptTimeout(timeout: Duration): RetryPolicy.Builder =
  attemptTimeout(timeout.toJavaDuration())

/**
 * Builds an [IdempotentClient] with its Java builder as receiver, so a client and its policy read
 * as one block:
 *
 * ```
 * val client = idempotentClient {
 *   store(store)
 *   dialect(Dialects.stripe())
 *   retryPolicy(retryPolicy { maxAttempts(4); deadline(30.seconds) })
 *   keyRetention(24.hours)
 * }
 * ```
 *
 * Every setting is checked exactly as in Java ([IdempotentClient.Builder.build]).
 */
public inline fun idempotentClient(block: IdempotentClient.Builder.() -> Unit): IdempotentClient =
  IdempotentClient.builder().apply(block).build()

/**
 * Builds an [IdempotencyInterceptor] with its Java builder as receiver; install it with
 * `installOn(OkHttpClient.Builder())` as in Java.
 */
public inline fun idempotencyInterceptor(block: IdempotencyInterceptor.Builder.() -> Unit): IdempotencyInterceptor =
  IdempotencyInterceptor.builder().apply(block).build()

/**
 * Sets how long the server keeps keys, as a `kotlin.time` duration.
 *
 * @throws IllegalArgumentException if it is zero or negative
 */
public fun <B : DriveSettingsBuilder<B>> B.keyRetention(retention: Duration): B =
  keyRetention(retention.toJavaDuration())
