package dev.oncely.kotlin

import dev.oncely.client.IdempotentClient
import dev.oncely.client.IntentOutcome
import dev.oncely.client.dialect.Dialects
import dev.oncely.client.spi.StoredResponse
import dev.oncely.persistence.StoreEngine
import dev.oncely.testing.Fault
import dev.oncely.testing.FaultScript
import java.nio.file.Path
import java.time.Instant
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir

/**
 * The README's Kotlin quick start, kept compiling and working: the same code against the testing
 * kit's server (first answer dropped after the charge) and a store in a temp directory instead of
 * the README's URL and path.
 */
class ReadmeKotlinQuickStartTest {
  @TempDir lateinit var dir: Path

  private val shipped = mutableListOf<StoredResponse>()
  private val other = mutableListOf<Any?>()

  @Test
  fun quick_start_charges_once_and_a_second_run_sends_nothing() = runBlocking<Unit> {
    Kit(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build()).use { kit ->
      val payments = kit.url("/payments").toString()
      quickStart(payments, dir.resolve("oncely.db"))
      quickStart(payments, dir.resolve("oncely.db"))

      assertThat(shipped).hasSize(2)
      assertThat(shipped[1].body()).isEqualTo(shipped[0].body())
      assertThat(other).isEmpty()
      assertThat(kit.server.ledger().size()).isEqualTo(1)
      assertThat(kit.server.requestCount()).isEqualTo(2)
    }
  }

  private suspend fun quickStart(paymentsUrl: String, file: Path) {
    // --- README: Kotlin quick start (from here) ---
    StoreEngine.defaultEngine().open(file).use { store ->
      IdempotentClient.builder()
        .store(store)
        .dialect(Dialects.stripe())
        .headerProvider { _, _ -> mapOf("Authorization" to "Bearer ${token()}") }
        .build()
        .use { client ->
          client.resumePending()

          val charge = intentSpec {
            operation("create-payment")
            scope("tenant-42")
            post(paymentsUrl)
            jsonBody("""{"amount":1000,"currency":"JPY","order":"o-7"}""")
            businessId("o-7")
          }

          when (val outcome = client.executeSuspending(charge)) {
            is IntentOutcome.Completed -> ship(outcome.response())
            is IntentOutcome.Pending -> checkAgainAt(outcome.checkAgainAt())
            is IntentOutcome.Rejected,
            is IntentOutcome.KeyConflict,
            is IntentOutcome.NeedsReconciliation -> handle(outcome)
          }
        }
    }
    // --- README: Kotlin quick start (to here) ---
  }

  private fun token(): String = "t0ken"

  private fun ship(response: StoredResponse) {
    shipped += response
  }

  private fun checkAgainAt(at: Instant?) {
    other += at
  }

  private fun handle(outcome: IntentOutcome) {
    other += outcome
  }
}
