package dev.oncely.kotlin

import dev.oncely.client.IdempotencyInterceptor
import dev.oncely.client.InMemoryIntentStore
import dev.oncely.client.IntentOutcome
import dev.oncely.client.IntentState
import dev.oncely.client.IntentTag
import dev.oncely.client.Sleeper
import dev.oncely.testing.Fault
import dev.oncely.testing.FaultScript
import java.time.Duration
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import okhttp3.MediaType.Companion.toMediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody
import okhttp3.RequestBody.Companion.toRequestBody
import okhttp3.ResponseBody
import okhttp3.coroutines.executeAsync
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import retrofit2.Response
import retrofit2.Retrofit
import retrofit2.create
import retrofit2.http.Body
import retrofit2.http.POST
import retrofit2.http.Tag

/**
 * The interceptor path from coroutines, against the testing kit's server with real OkHttp: a
 * Retrofit `suspend` method with `@Tag intent: IntentTag`, and okhttp-coroutines' `executeAsync()`.
 * Both cancel the OkHttp call when the coroutine is cancelled; a cancel after the request was
 * written must leave the intent pending and maybe delivered (never failed, never a second key),
 * and a later resume must finish it with one effect.
 */
class InterceptorSuspendTest {
  /** The app's Retrofit interface: nothing but the `@Tag` parameter is Oncely's. */
  interface Payments {
    @POST("payments")
    suspend fun pay(@Body payment: RequestBody, @Tag intent: IntentTag): Response<ResponseBody>
  }

  private val closing = mutableListOf<AutoCloseable>()
  private val store = InMemoryIntentStore()
  private val interceptor = IdempotencyInterceptor.builder()
    .store(store)
    .retryPolicy(fastRetries())
    .sleeper(Sleeper { Thread.sleep(20) })
    .build()
  private val http = interceptor.installOn(OkHttpClient.Builder()).build()

  @AfterEach
  fun closeAll() {
    closing.asReversed().forEach { it.close() }
    http.dispatcher.executorService.shutdownNow()
    http.connectionPool.evictAll()
  }

  private fun kit(faults: FaultScript = FaultScript.none()): Kit =
    Kit(faults).also { closing += it }

  private fun payments(kit: Kit): Payments =
    Retrofit.Builder().baseUrl(kit.url("/")).client(http).build().create()

  private fun order(id: String): IntentTag = intentTag {
    operation("create-payment")
    scope("customer-c-1")
    businessId(id)
  }

  private fun body(order: String, amount: Int = 1200): RequestBody =
    """{"amount":$amount,"currency":"JPY","order":"$order"}""".toRequestBody("application/json".toMediaType())

  @Test
  fun a_suspend_retrofit_call_per_intent_through_dropped_answers_makes_one_effect_with_one_key_each() =
    runBlocking<Unit> {
      val kit = kit(FaultScript.builder().onRequestOfKey(1, Fault.dropAfterCommit()).build())
      val payments = payments(kit)
      val orders = (1..5).map { "o-$it" }

      val codes = orders.map { id -> async { payments.pay(body(id), order(id)).also { it.body()?.close() }.code() } }
        .awaitAll()

      assertThat(codes).containsOnly(201)
      kit.server.ledger().assertExactlyOneEffectEach(orders)
      for (id in orders) {
        val keys = kit.requests().filter { it.bodyText().contains("\"$id\"") }
          .map { it.header(dev.oncely.testing.IdempotentServer.DEFAULT_KEY_HEADER) }
        assertThat(keys).describedAs("keys of $id").hasSize(2).doesNotContainNull().containsOnly(keys[0])
      }
    }

  @Test
  fun two_coroutines_paying_the_same_business_id_through_retrofit_put_one_request_on_the_wire() =
    runBlocking<Unit> {
      val kit = kit()
      val payments = payments(kit)
      val go = Channel<Unit>()

      val answers = withContext(Dispatchers.Default) {
        val payers = (1..2).map {
          async {
            go.receive()
            payments.pay(body("o-7"), order("o-7")).also { it.body()?.close() }
          }
        }
        repeat(2) { go.send(Unit) }
        payers.awaitAll()
      }

      assertThat(answers.map { it.code() }).containsOnly(201)
      assertThat(kit.server.requestCount()).isEqualTo(1)
      assertThat(kit.server.ledger().countOf("o-7")).isEqualTo(1)
    }

  @Test
  fun a_retrofit_suspend_call_cancelled_after_the_request_was_written_stays_pending_maybe_delivered_and_a_resume_pays_once() =
    runBlocking<Unit> {
      val kit = kit(FaultScript.builder().onRequest(1, Fault.stallAfterCommit()).stallFor(Duration.ofSeconds(5)).build())
      val tag = order("o-8")

      val thrown = CompletableDeferred<Throwable>()
      val caller = launch(Dispatchers.Default) { capture(thrown) { payments(kit).pay(body("o-8"), tag) } }
      cancelOnceCommitted(kit, "o-8") { caller.cancelAndJoin() }
      assertThat(thrown.await()).isInstanceOf(CancellationException::class.java)

      resumeAndCheckOneEffect(kit, tag, "o-8")
    }

  @Test
  fun execute_async_cancelled_after_the_request_was_written_stays_pending_maybe_delivered_and_a_resume_pays_once() =
    runBlocking<Unit> {
      val kit = kit(FaultScript.builder().onRequest(1, Fault.stallAfterCommit()).stallFor(Duration.ofSeconds(5)).build())
      val tag = order("o-9")
      val request = Request.Builder().url(kit.url("/payments")).intent(tag).post(body("o-9")).build()

      val thrown = CompletableDeferred<Throwable>()
      val caller = launch(Dispatchers.Default) { capture(thrown) { http.newCall(request).executeAsync().close() } }
      cancelOnceCommitted(kit, "o-9") { caller.cancelAndJoin() }
      assertThat(thrown.await()).isInstanceOf(CancellationException::class.java)

      resumeAndCheckOneEffect(kit, tag, "o-9")
    }

  /** Runs [call] and completes [thrown] with what it threw (an error if it returned). */
  private suspend fun capture(thrown: CompletableDeferred<Throwable>, call: suspend () -> Unit) {
    try {
      call()
      thrown.complete(AssertionError("the call returned instead of being cancelled"))
    } catch (e: Throwable) {
      thrown.complete(e)
      throw e
    }
  }

  /** Waits until the server committed the effect (so the request was written), then cancels. */
  private suspend fun cancelOnceCommitted(kit: Kit, order: String, cancel: suspend () -> Unit) {
    awaitTrue("the server committed $order") { kit.server.ledger().countOf(order) == 1 }
    cancel()
  }

  private suspend fun resumeAndCheckOneEffect(kit: Kit, tag: IntentTag, order: String) {
    awaitTrue("the record of $order was parked") {
      interceptor.outcomeOrNull(tag) is IntentOutcome.Pending &&
        store.listUnfinished().single().state() == IntentState.PENDING
    }
    val parked = store.listUnfinished().single()
    assertThat(kit.server.ledger().countOf(order)).isEqualTo(1)

    val resumed = interceptor.resume(http, parked.id()).await()

    assertThat(resumed).isInstanceOf(IntentOutcome.Completed::class.java)
    assertThat(interceptor.outcomeOrNull(tag)).isInstanceOf(IntentOutcome.Completed::class.java)
    assertThat(kit.server.ledger().countOf(order)).isEqualTo(1)
    assertThat(kit.keysSent()).hasSize(2).containsOnly(quoted(parked.id().key()))
    // A cancel after the first byte may have left is "maybe delivered".
    assertThat(parked.maybeDelivered()).describedAs("parked record is marked maybe delivered").isTrue()
  }
}
