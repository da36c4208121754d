package dev.oncely.kotlin

import dev.oncely.client.IdempotentClient
import dev.oncely.client.InMemoryIntentStore
import dev.oncely.client.IntentOutcome
import dev.oncely.client.IntentSpec
import dev.oncely.client.IntentState
import dev.oncely.client.PayloadMismatchException
import dev.oncely.client.PendingReason
import dev.oncely.client.Sleeper
import dev.oncely.client.event.IntentEvent
import dev.oncely.client.event.IntentListener
import dev.oncely.testing.Fault
import dev.oncely.testing.FaultScript
import java.time.Duration
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.flow.filterIsInstance
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test

/**
 * `executeSuspending` against the testing kit's server with real OkHttp: a cancelled caller gets
 * `CancellationException`, the drive (shared or not) is never cancelled, an intent that may have
 * been delivered is never reported failed, and a later resume finishes it with the same key and
 * one effect.
 */
class ExecuteSuspendingTest {
  private val closing = mutableListOf<AutoCloseable>()

  @AfterEach
  fun closeAll() {
    closing.asReversed().forEach { it.close() }
  }

  private fun <T : AutoCloseable> T.closedAfter(): T = also { closing += it }

  private fun client(
    store: InMemoryIntentStore = InMemoryIntentStore(),
    listener: IntentListener = IntentListener.NONE,
    maxAttempts: Int = 6,
    pause: Duration = Duration.ofMillis(20),
  ): IdempotentClient =
    IdempotentClient.builder()
      .store(store)
      .listener(listener)
      .retryPolicy(fastRetries(maxAttempts))
      // The same wait before every retry (no jitter), so "mid-retry" is a fixed point in time.
      .sleeper(Sleeper { Thread.sleep(pause.toMillis()) })
      .build()
      .closedAfter()

  private fun payment(kit: Kit, order: String, amount: Int = 1000): IntentSpec = intentSpec {
    operation("create-payment")
    scope("tenant-42")
    post(kit.url("/payments").toString())
    jsonBody("""{"amount":$amount,"currency":"JPY","order":"$order"}""")
    businessId(order)
  }

  @Test
  fun a_suspend_payment_through_dropped_answers_completes_with_one_effect_and_one_key() = runBlocking<Unit> {
    val kit = Kit(FaultScript.builder().onRequest(1, Fault.dropAfterCommit())
      .onRequest(2, Fault.dropAfterCommit()).build()).closedAfter()
    val spec = payment(kit, "o-1")

    val outcome = client().executeSuspending(spec)

    assertThat(outcome).isInstanceOf(IntentOutcome.Completed::class.java)
    assertThat(kit.server.ledger().countOf("o-1")).isEqualTo(1)
    assertThat(kit.keysSent()).hasSize(3).containsOnly(quoted(spec.key()))
  }

  @Test
  fun a_changed_payload_under_a_used_business_id_throws_before_any_io() = runBlocking<Unit> {
    val kit = Kit().closedAfter()
    val client = client()
    client.executeSuspending(payment(kit, "o-2"))

    assertThatThrownBy { runBlocking { client.executeSuspending(payment(kit, "o-2", amount = 9999)) } }
      .isInstanceOf(PayloadMismatchException::class.java)
    assertThat(kit.server.requestCount()).isEqualTo(1)
  }

  @Test
  fun with_timeout_mid_retry_throws_cancellation_leaves_the_intent_pending_maybe_delivered_and_a_resume_pays_once() =
    runBlocking<Unit> {
      // Every answer is dropped after the server committed; attempts at about 0, 300, 600 and
      // 900 ms, the caller's timeout at 450 ms: it fires while the drive waits to retry.
      val kit = Kit(FaultScript.builder().rule { _, _ -> Fault.dropAfterCommit() }.build()).closedAfter()
      val store = InMemoryIntentStore()
      val events = IntentEventFlow()
      val client = client(store, events, maxAttempts = 4, pause = Duration.ofMillis(300))
      val spec = payment(kit, "o-3")
      val parked = async(Dispatchers.Default) {
        events.events.filterIsInstance<IntentEvent.GaveUpUnknown>().first()
      }
      awaitTrue("the event collector subscribed") { events.collectors.value == 1 }

      assertThatThrownBy {
        runBlocking { withTimeout(450) { client.executeSuspending(spec) } }
      }.isInstanceOf(TimeoutCancellationException::class.java)
      assertThat(kit.server.requestCount()).describedAs("attempts sent before the timeout").isBetween(1, 3)
      assertThat(parked.isCompleted).describedAs("the drive had given up before the timeout").isFalse()

      // The drive was not cancelled with the caller: it parks the intent pending, never failed.
      assertThat(withTimeout(10_000) { parked.await() }.reason()).isEqualTo(PendingReason.ATTEMPTS_EXHAUSTED)
      assertThat(kit.server.ledger().countOf("o-3")).isEqualTo(1)
      val record = store.get(spec.id()).orElseThrow()
      assertThat(record.state()).isEqualTo(IntentState.PENDING)
      assertThat(record.maybeDelivered()).isTrue()
      assertThat(client.outcomeOf(spec.id()).orElseThrow()).isInstanceOf(IntentOutcome.Pending::class.java)
      assertThat(kit.requests()).hasSize(4)

      kit.server.changeFaults(FaultScript.none())
      // The event was out only after the drive began its last write, so this resume gets a drive
      // of its own even if the one that gave up has not left yet, never that drive's Pending.
      val resumed = client.resume(spec.id()).await()

      assertThat(resumed).isInstanceOf(IntentOutcome.Completed::class.java)
      assertThat(kit.server.ledger().countOf("o-3")).isEqualTo(1)
      assertThat(kit.keysSent()).hasSize(5).containsOnly(quoted(spec.key()))
    }

  @Test
  fun cancelling_one_caller_never_cancels_the_drive_another_caller_joined() = runBlocking<Unit> {
    // Two answers dropped after commit, 300 ms apart: the drive outlives the first caller's wait.
    val kit = Kit(FaultScript.builder().onRequest(1, Fault.dropAfterCommit())
      .onRequest(2, Fault.dropAfterCommit()).build()).closedAfter()
    val client = client(pause = Duration.ofMillis(300))
    val spec = payment(kit, "o-4")

    withContext(Dispatchers.Default) {
      val leaving = launch { client.executeSuspending(spec) }
      val staying = async { client.executeSuspending(spec) }
      awaitTrue("the first attempt reached the server") { kit.server.requestCount() >= 1 }
      leaving.cancelAndJoin()

      assertThat(leaving.isCancelled).isTrue()
      val outcome = staying.await()
      assertThat(outcome).isInstanceOf(IntentOutcome.Completed::class.java)
    }
    assertThat(kit.server.ledger().countOf("o-4")).isEqualTo(1)
    assertThat(kit.keysSent()).hasSize(3).containsOnly(quoted(spec.key()))
  }

  @Test
  fun two_coroutines_paying_the_same_business_id_put_one_request_on_the_wire() = runBlocking<Unit> {
    val kit = Kit().closedAfter()
    val client = client()
    // Two specs built apart, as two screens would: two random keys, one business id.
    val first = payment(kit, "o-5")
    val second = payment(kit, "o-5")
    assertThat(first.key()).isNotEqualTo(second.key())
    val go = Channel<Unit>()

    val outcomes = withContext(Dispatchers.Default) {
      val payers = listOf(first, second).map { spec ->
        async {
          go.receive()
          client.executeSuspending(spec)
        }
      }
      repeat(2) { go.send(Unit) }
      payers.awaitAll()
    }

    assertThat(outcomes).allSatisfy { assertThat(it).isInstanceOf(IntentOutcome.Completed::class.java) }
    assertThat(outcomes.map { it.id() }.distinct()).hasSize(1)
    assertThat(kit.server.requestCount()).isEqualTo(1)
    assertThat(kit.server.ledger().countOf("o-5")).isEqualTo(1)
  }

  @Test
  fun a_cancelled_caller_gets_cancellation_never_an_outcome_or_a_failure() = runBlocking<Unit> {
    val kit = Kit(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build()).closedAfter()
    val client = client(pause = Duration.ofMillis(300))
    val spec = payment(kit, "o-6")
    var thrown: Throwable? = null

    val caller = launch(Dispatchers.Default) {
      try {
        client.executeSuspending(spec)
      } catch (e: Throwable) {
        thrown = e
        throw e
      }
    }
    awaitTrue("the first attempt reached the server") { kit.server.requestCount() >= 1 }
    caller.cancelAndJoin()

    assertThat(thrown).isInstanceOf(CancellationException::class.java)
    val done = client.resume(spec.id()).await()
    assertThat(done).isInstanceOf(IntentOutcome.Completed::class.java)
    assertThat(kit.server.ledger().countOf("o-6")).isEqualTo(1)
    assertThat(kit.keysSent()).containsOnly(quoted(spec.key()))
  }
}
