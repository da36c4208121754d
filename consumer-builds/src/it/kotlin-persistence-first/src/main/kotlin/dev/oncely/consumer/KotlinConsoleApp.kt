package dev.oncely.consumer

import dev.oncely.client.IdempotentClient
import dev.oncely.client.IntentOutcome
import dev.oncely.kotlin.executeSuspending
import dev.oncely.kotlin.intentSpec
import dev.oncely.persistence.StoreEngine
import dev.oncely.testing.Fault
import dev.oncely.testing.FaultScript
import dev.oncely.testing.IdempotentServer
import java.nio.file.Files
import kotlinx.coroutines.runBlocking
import mockwebserver3.MockWebServer

/**
 * One payment through a server that charges and then drops its answer: the coroutine resends it
 * with the same key, and the server's ledger must show exactly one charge. The code is the README's
 * Kotlin quick start (durable MapDB store, `intentSpec { }`, `executeSuspending`).
 */
fun main() {
  // MapDB asks for kotlin-stdlib 1.9.x; Oncely, OkHttp and this app are built for 2.2.
  check(KotlinVersion.CURRENT.isAtLeast(2, 2)) {
    "kotlin-stdlib ${KotlinVersion.CURRENT} on the class path, expected 2.2 or later"
  }
  val payments = IdempotentServer.builder()
      .intentOf(IdempotentServer.jsonField("order"))
      .faults(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build())
      .build()
  val dir = Files.createTempDirectory("oncely-kotlin-consumer")
  MockWebServer().use { server ->
    server.dispatcher = payments
    server.start()
    val outcome = runBlocking {
      StoreEngine.defaultEngine().open(dir.resolve("oncely.db")).use { store ->
        IdempotentClient.builder()
            .store(store)
            .build()
            .use { client ->
              client.resumePending()

              val charge = intentSpec {
                operation("create-payment")
                scope("tenant-42")
                post(server.url("/payments").toString())
                jsonBody("""{"amount":1000,"currency":"JPY","order":"o-7"}""")
                businessId("o-7")
              }

              client.executeSuspending(charge)
            }
      }
    }
    check(outcome is IntentOutcome.Completed) { "expected Completed, got $outcome" }
    payments.ledger().assertExactlyOneEffectEach(listOf("o-7"))
    check(payments.ledger().size() == 1) { "expected one effect, got ${payments.ledger().all()}" }
    println("kotlin-stdlib ${KotlinVersion.CURRENT}: one intent, " +
        "${payments.requestCount()} requests, ${payments.ledger().size()} effect")
  }
}
