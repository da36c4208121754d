package dev.oncely.kotlin

import dev.oncely.client.IdempotentClient
import dev.oncely.client.IntentOutcome
import dev.oncely.client.dialect.Dialects
import dev.oncely.client.StoredResponse
import dev.oncely.persistence.StoreEngine
import dev.oncely.testing.Fault
import dev.oncely.testing.FaultScript
import java.nio.file.Files
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
    // In a coroutine: suspends without blocking a thread; the drive runs on the client's executor.
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

          // A cancelled caller gets CancellationException; the drive goes on, the intent is unharmed.
          when (val outcome = client.executeSuspending(charge)) {
            is IntentOutcome.Completed -> ship(outcome.response())
            is IntentOutcome.Pending -> checkAgainAt(outcome.checkAgainAt()) // unknown, never "failed"
            is IntentOutcome.Rejected,
            is IntentOutcome.KeyConflict,
            is IntentOutcome.NeedsReconciliation -> handle(outcome)
          }
        }
    }
    // --- README: Kotlin quick start (to here) ---
  }

  @Test
  fun the_readme_shows_this_code_with_only_the_url_and_the_path_replaced() {
    val readme = Files.readString(Path.of("..", "README.md"))
    val shown = readme.substringAfter("`ReadmeKotlinQuickStartTest`").substringAfter("```kotlin\n")
      .substringBefore("```").trimIndent()
    val source = Files.readString(Path.of("src/test/kotlin/dev/oncely/kotlin/ReadmeKotlinQuickStartTest.kt"))
    val tested = source.substringAfter("(from here) ---\n").substringBefore("    // --- README:")
      .trimIndent()
      .replace("open(file)", "open(Path.of(\"/var/lib/shop/oncely.db\"))")
      .replace("post(paymentsUrl)", "post(\"https://api.example.com/payments\")")

    assertThat(shown).isEqualTo(tested)
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
