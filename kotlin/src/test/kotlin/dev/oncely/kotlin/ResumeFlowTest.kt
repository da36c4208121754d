package dev.oncely.kotlin

import dev.oncely.client.IdempotencyInterceptor
import dev.oncely.client.IdempotentClient
import dev.oncely.client.InMemoryIntentStore
import dev.oncely.client.IntentIOException
import dev.oncely.client.IntentOutcome
import dev.oncely.client.IntentSpec
import dev.oncely.client.PendingReason
import dev.oncely.client.event.IntentListener
import dev.oncely.testing.Fault
import dev.oncely.testing.FaultScript
import java.time.Duration
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import okhttp3.MediaType.Companion.toMediaType
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.RequestBody.Companion.toRequestBody
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test

/**
 * The coroutine-native resume and look-ups against the testing kit's server with real OkHttp and
 * real coroutines: `resumePendingFlow()` emits each resumed intent's outcome as its drive ends,
 * `resumeSuspending` suspends for one, and a caller that `withTimeout` cancelled reads the drive
 * its own client still runs as `IN_PROGRESS`, never `DRIVEN_ELSEWHERE`.
 */
class ResumeFlowTest {
  private val closing = mutableListOf<AutoCloseable>()
  private val store = InMemoryIntentStore()

  @AfterEach
  fun closeAll() {
    closing.asReversed().forEach { it.close() }
  }

  private fun <T : AutoCloseable> T.closedAfter(): T = also { closing += it }

  private fun client(maxAttempts: Int, pause: Duration = Duration.ofMillis(20)): IdempotentClient =
    IdempotentClient.builder().store(store).listener(IntentListener.NONE)
      .retryPolicy(fastRetries(maxAttempts, pause)).build().closedAfter()

  private fun payment(kit: Kit, order: String): IntentSpec = intentSpec {
    operation("create-payment")
    scope("tenant-42")
    post(kit.url("/payments").toString())
    jsonBody("""{"order":"$order","amount":1000}""")
    businessId(order)
  }

  @Test
  fun resume_pending_flow_emits_every_unfinished_intents_outcome_with_one_effect_each() = runBlocking<Unit> {
    val kit = Kit(FaultScript.builder().rule { _, _ -> Fault.dropAfterCommit() }.build()).closedAfter()
    val client = client(maxAttempts = 1)
    val orders = listOf("o-1", "o-2", "o-3")
    for (order in orders) {
      assertThat(client.executeSuspending(payment(kit, order))).isInstanceOf(IntentOutcome.Pending::class.java)
    }
    kit.server.changeFaults(FaultScript.none())
    val flow = client.resumePendingFlow()
    // Cold: nothing is resumed before the flow is collected.
    Thread.sleep(100)
    assertThat(kit.requests()).hasSize(3)

    val outcomes = withContext(Dispatchers.Default) { flow.toList() }

    assertThat(outcomes).hasSize(3).allSatisfy { assertThat(it).isInstanceOf(IntentOutcome.Completed::class.java) }
    for (order in orders) {
      assertThat(kit.server.ledger().countOf(order)).isEqualTo(1)
    }
    assertThat(client.resumePendingFlow().toList()).isEmpty()
  }

  @Test
  fun resume_suspending_drives_one_intent_again_under_its_key() = runBlocking<Unit> {
    val kit = Kit(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build()).closedAfter()
    val client = client(maxAttempts = 1)
    val spec = payment(kit, "o-4")
    assertThat(client.executeSuspending(spec)).isInstanceOf(IntentOutcome.Pending::class.java)

    val resumed = client.resumeSuspending(spec.id())

    assertThat(resumed).isInstanceOf(IntentOutcome.Completed::class.java)
    assertThat(client.outcomeOrNull(spec.id())).isInstanceOf(IntentOutcome.Completed::class.java)
    assertThat(kit.server.ledger().countOf("o-4")).isEqualTo(1)
    assertThat(kit.keysSent()).hasSize(2).containsOnly(quoted(spec.key()))
  }

  @Test
  fun the_interceptor_resumes_as_a_flow_and_one_by_one_through_the_apps_client() = runBlocking<Unit> {
    val kit = Kit(FaultScript.builder().rule { _, _ -> Fault.dropAfterCommit() }.build()).closedAfter()
    val oncely = IdempotencyInterceptor.builder().store(store).listener(IntentListener.NONE)
      .retryPolicy(fastRetries(1)).build().closedAfter()
    val http = oncely.installOn(OkHttpClient.Builder()).build()
    val tags = listOf("o-5", "o-6").map { order ->
      intentTag { operation("create-payment"); scope("tenant-42"); businessId(order) } to order
    }
    for ((tag, order) in tags) {
      val request = Request.Builder().url(kit.url("/payments")).intent(tag)
        .post("""{"order":"$order"}""".toRequestBody("application/json".toMediaType())).build()
      val failure = runCatching { http.newCall(request).execute().close() }.exceptionOrNull()
      // The outcome is unknown, and says so: an IntentIOException carrying it.
      assertThat(failure).isInstanceOf(IntentIOException::class.java)
      assertThat((failure as IntentIOException).outcomeOrNull()).isInstanceOf(IntentOutcome.Pending::class.java)
    }
    kit.server.changeFaults(FaultScript.none())
    val first = oncely.outcomeOrNull(tags[0].first)!!

    assertThat(oncely.resumeSuspending(http, first.id())).isInstanceOf(IntentOutcome.Completed::class.java)
    val rest = withContext(Dispatchers.Default) { oncely.resumePendingFlow(http).toList() }

    assertThat(rest).singleElement().isInstanceOf(IntentOutcome.Completed::class.java)
    assertThat(tags.map { oncely.outcomeOrNull(it.first) })
      .allSatisfy { assertThat(it).isInstanceOf(IntentOutcome.Completed::class.java) }
    assertThat(kit.server.ledger().countOf("o-5")).isEqualTo(1)
    assertThat(kit.server.ledger().countOf("o-6")).isEqualTo(1)
  }

  @Test
  fun after_with_timeout_the_callers_own_client_reads_its_drive_as_in_progress() = runBlocking<Unit> {
    // Every answer dropped after commit, a full 1.5 s between attempts (no jitter): the drive
    // (about 4.5 s) outlives the caller by far, so even a late cancel reads it while it runs.
    val kit = Kit(FaultScript.builder().rule { _, _ -> Fault.dropAfterCommit() }.build()).closedAfter()
    val client = IdempotentClient.builder().store(store).listener(IntentListener.NONE)
      .retryPolicy(fastRetries(4, Duration.ofMillis(1500)))
      .jitter(object : java.util.Random() {
        override fun nextDouble(): Double = 0.999
      })
      .build().closedAfter()
    val spec = payment(kit, "o-7")
    val tag = intentTag { operation("create-payment"); scope("tenant-42"); businessId("o-7") }

    assertThatThrownBy { runBlocking { withTimeout(450) { client.executeSuspending(spec) } } }
      .isInstanceOf(TimeoutCancellationException::class.java)

    // Right after the cancel the drive still runs in this very client: in progress, not elsewhere.
    val now = client.outcomeOrNull(spec.id())
    assertThat(now).isInstanceOfSatisfying(IntentOutcome.Pending::class.java) {
      assertThat(it.reason()).isEqualTo(PendingReason.IN_PROGRESS)
    }
    assertThat((client.outcomeOrNull(tag) as IntentOutcome.Pending).reason()).isEqualTo(PendingReason.IN_PROGRESS)

    // Once the drive gave up, the reason it stopped with; still never DRIVEN_ELSEWHERE.
    awaitTrue("the drive parked the intent") {
      (client.outcomeOrNull(spec.id()) as IntentOutcome.Pending).reason() != PendingReason.IN_PROGRESS
    }
    assertThat((client.outcomeOrNull(spec.id()) as IntentOutcome.Pending).reason())
      .isEqualTo(PendingReason.ATTEMPTS_EXHAUSTED)
  }
}
