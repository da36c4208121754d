@file:JvmName("OncelyBuilders")

package dev.oncely.kotlin

import dev.oncely.client.BodyTooLargeException
import dev.oncely.client.IntentSpec
import dev.oncely.client.IntentTag
import dev.oncely.client.InvalidIntentException
import okhttp3.Request

/**
 * Builds an [IntentSpec] with the Java builder as receiver, so every setting is checked exactly as
 * there and the key is minted when the block returns:
 *
 * ```
 * val charge = intentSpec {
 *   operation("create-payment")
 *   scope("tenant-42")
 *   post("https://api.example.com/payments")
 *   jsonBody("""{"amount":1000,"currency":"JPY","order":"o-7"}""")
 *   businessId("o-7")
 * }
 * ```
 *
 * @throws InvalidIntentException if a setting is refused, or operation, scope or URL is missing
 *   (see [IntentSpec.Builder.build])
 * @throws BodyTooLargeException if the body is over the builder's body limit
 */
public inline fun intentSpec(block: IntentSpec.Builder.() -> Unit): IntentSpec =
  IntentSpec.builder().apply(block).build()

/**
 * Builds an [IntentTag] (the identity of a call through the interceptor, for OkHttp's request tag
 * or Retrofit's `@Tag`) with the Java builder as receiver:
 *
 * ```
 * val order = intentTag {
 *   operation("create-payment")
 *   scope("tenant-42")
 *   businessId("o-7")
 * }
 * ```
 *
 * @throws InvalidIntentException if a setting is refused, operation or scope is missing, or a
 *   derived key strategy has no business id
 */
public inline fun intentTag(block: IntentTag.Builder.() -> Unit): IntentTag =
  IntentTag.builder().apply(block).build()

/**
 * Tags the request with [tag], making the call a durable intent for an
 * [dev.oncely.client.IdempotencyInterceptor] with a store: the same as
 * `tag(IntentTag::class.java, tag)`, under the one class the interceptor looks for.
 */
public fun Request.Builder.intent(tag: IntentTag): Request.Builder = tag(IntentTag::class.java, tag)
