package dev.oncely.kotlin

import dev.oncely.client.IdempotentClient
import dev.oncely.client.IntentOutcome
import dev.oncely.client.PendingReason
import dev.oncely.client.event.IntentEvent
import dev.oncely.client.event.IntentListener
import dev.oncely.client.IntentId
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.takeWhile
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

class IntentEventFlowTest {
  private val id = IntentId.of("tenant-42", "create-payment", "k".repeat(32))

  @Test
  fun a_drive_publishes_its_events_in_order_ending_with_the_outcome() = runBlocking<Unit> {
    Kit().use { kit ->
      val events = IntentEventFlow()
      IdempotentClient.builder().listener(IntentListener.all(events)).build().use { client ->
        val seen = async(Dispatchers.Default) {
          events.events.takeWhile { it !is IntentEvent.Completed }.toList()
        }
        awaitTrue("the collector subscribed") { events.collectors.value == 1 }

        val outcome = client.executeSuspending(intentSpec {
          operation("create-payment")
          scope("tenant-42")
          post(kit.url("/payments").toString())
          jsonBody("""{"amount":1000,"order":"o-1"}""")
        })

        assertThat(outcome).isInstanceOf(IntentOutcome.Completed::class.java)
        assertThat(withTimeout(5_000) { seen.await() }.map { it::class.simpleName })
          .containsExactly("Recorded", "AttemptStarted", "AttemptEnded")
        assertThat(events.droppedEvents).isZero()
      }
    }
  }

  @Test
  fun a_slow_collector_never_blocks_the_emitter_and_missed_events_are_counted() = runTest {
    val events = IntentEventFlow(bufferCapacity = 2)
    val got = mutableListOf<IntentEvent>()
    val collector = launch {
      events.events.take(3).collect {
        got += it
        delay(1_000) // virtual time: the collector is slow, the emitter is not held up
      }
    }
    testScheduler.runCurrent()

    repeat(10) { emit(events, it) }

    // The collector has not run yet: two events wait in its buffer, eight found it full.
    assertThat(events.droppedEvents).isEqualTo(8)
    testScheduler.advanceUntilIdle()
    emit(events, 10) // the collector caught up: room again
    collector.join()
    assertThat(got.map { (it as IntentEvent.RetryScheduled).nextAttempt() }).containsExactly(0, 1, 10)
    assertThat(events.droppedEvents).isEqualTo(8)
  }

  private fun emit(events: IntentEventFlow, n: Int) {
    events.onEvent(IntentEvent.RetryScheduled(id, n, java.time.Duration.ZERO, "test"))
  }

  @Test
  fun without_collectors_events_are_discarded_not_counted() {
    val events = IntentEventFlow()
    events.onEvent(IntentEvent.GaveUpUnknown(id, PendingReason.INTERRUPTED, "test"))
    assertThat(events.droppedEvents).isZero()
  }

  @Test
  fun a_buffer_below_one_is_refused_naming_the_setting() {
    assertThatThrownBy { IntentEventFlow(bufferCapacity = 0) }
      .isInstanceOf(IllegalArgumentException::class.java)
      .hasMessageContaining("bufferCapacity")
  }
}
