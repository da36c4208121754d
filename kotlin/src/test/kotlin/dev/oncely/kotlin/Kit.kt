package dev.oncely.kotlin

import dev.oncely.client.RetryPolicy
import dev.oncely.client.IntentId
import dev.oncely.client.IntentRecord
import dev.oncely.client.IntentStore
import dev.oncely.testing.FaultScript
import dev.oncely.testing.IdempotentServer
import dev.oncely.testing.ReceivedRequest
import java.time.Duration
import mockwebserver3.MockWebServer
import okhttp3.HttpUrl

/** The testing kit's idempotent server on a real MockWebServer; close it after the test. */
class Kit(faults: FaultScript = FaultScript.none(), configure: IdempotentServer.Builder.() -> Unit = {}) :
  AutoCloseable {
  val server: IdempotentServer =
    IdempotentServer.builder()
      .intentOf(IdempotentServer.jsonField("order"))
      .faults(faults)
      .apply(configure)
      .build()
  private val web = MockWebServer().apply {
    dispatcher = server
    start()
  }

  fun url(path: String): HttpUrl = web.url(path)

  /** The keys (as sent, quoted by the IETF dialect) of every request that reached the server. */
  fun keysSent(): List<String?> = server.requests().all().map { it.header(IdempotentServer.DEFAULT_KEY_HEADER) }

  fun requests(): List<ReceivedRequest> = server.requests().all()

  override fun close() {
    server.close() // ends stalled answers, so the web server's threads can stop
    web.close()
  }
}

/** Short waits so a drive through a few dropped answers takes milliseconds. */
fun fastRetries(maxAttempts: Int = 6, delay: Duration = Duration.ofMillis(20)): RetryPolicy =
  RetryPolicy.builder()
    .maxAttempts(maxAttempts)
    .baseDelay(delay)
    .maxDelay(delay)
    .attemptTimeout(Duration.ofSeconds(2))
    .deadline(Duration.ofSeconds(20))
    .build()

fun quoted(key: String): String = "\"" + key + "\""

/** Polls [store] until the record of [id] satisfies [done], for at most 10 s. */
fun awaitRecord(store: IntentStore, id: IntentId, done: (IntentRecord) -> Boolean): IntentRecord {
  val until = System.nanoTime() + Duration.ofSeconds(10).toNanos()
  while (true) {
    val record = store.get(id).orElse(null)
    if (record != null && done(record)) {
      return record
    }
    check(System.nanoTime() < until) { "record $id did not get there in 10 s: $record" }
    Thread.sleep(10)
  }
}

/** Polls until [condition] holds, for at most 10 s. */
fun awaitTrue(what: String, condition: () -> Boolean) {
  val until = System.nanoTime() + Duration.ofSeconds(10).toNanos()
  while (!condition()) {
    check(System.nanoTime() < until) { "$what did not happen in 10 s" }
    Thread.sleep(10)
  }
}
