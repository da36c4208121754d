package dev.oncely.kotlin

import dev.oncely.client.event.IntentEvent
import dev.oncely.client.event.IntentListener
import java.util.concurrent.atomic.AtomicLong
import kotlinx.coroutines.flow.MutableSharedFlow
import kotlinx.coroutines.flow.SharedFlow
import kotlinx.coroutines.flow.StateFlow
import kotlinx.coroutines.flow.asSharedFlow

/**
 * An [IntentListener] that publishes every [IntentEvent] as a hot [Flow][kotlinx.coroutines.flow.Flow]:
 * install it on a client or interceptor builder (combine it with others through
 * [IntentListener.all]) and collect [events] in any coroutine.
 *
 * ```
 * val events = IntentEventFlow()
 * val client = IdempotentClient.builder()
 *   .listener(IntentListener.all(LoggingListener.instance(), events))
 *   .build()
 * scope.launch {
 *   events.events.filterIsInstance<IntentEvent.GaveUpUnknown>().collect { showPending(it.id()) }
 * }
 * ```
 *
 * **Never slows a drive.** Listeners run on the thread driving the intent, so [onEvent] never
 * suspends or blocks: each collector has a buffer of [bufferCapacity] events, and an event that
 * finds a collector's buffer full is not delivered to any collector and is counted in
 * [droppedEvents] (best effort for slow collectors, exact for fast ones). Events are delivered in
 * the order each driving thread emitted them; events of intents driven on different threads
 * interleave. There is no replay: a collector sees the events emitted while it collects (wait for
 * [collectors] to count it). Events never carry keys, payloads or header
 * values. Thread-safe.
 *
 * @param bufferCapacity how many events each collector may fall behind before events are dropped
 *   (default [DEFAULT_BUFFER_CAPACITY])
 * @throws IllegalArgumentException if [bufferCapacity] is below 1
 */
public class IntentEventFlow(public val bufferCapacity: Int = DEFAULT_BUFFER_CAPACITY) :
  IntentListener {
  init {
    require(bufferCapacity >= 1) { "bufferCapacity must be >= 1, was $bufferCapacity" }
  }

  private val shared = MutableSharedFlow<IntentEvent>(extraBufferCapacity = bufferCapacity)
  private val dropped = AtomicLong()

  /** The events, as they happen; collecting never ends on its own (cancel the collector). */
  public val events: SharedFlow<IntentEvent> = shared.asSharedFlow()

  /** How many collectors [events] has now; a collector sees only events emitted after it counts here. */
  public val collectors: StateFlow<Int> = shared.subscriptionCount

  /** How many events were not delivered because a collector's buffer was full. */
  public val droppedEvents: Long
    get() = dropped.get()

  /** Publishes [event] without suspending; counts it as dropped when a collector is full. */
  override fun onEvent(event: IntentEvent) {
    if (!shared.tryEmit(event)) {
      dropped.incrementAndGet()
    }
  }

  /** Describes the flow by its settings and counts, never by an event's content. */
  override fun toString(): String =
    "IntentEventFlow{bufferCapacity=$bufferCapacity, collectors=${collectors.value}," +
      " dropped=${dropped.get()}}"

  public companion object {
    /** Default [bufferCapacity]: 1,024 events per collector. */
    public const val DEFAULT_BUFFER_CAPACITY: Int = 1024
  }
}
