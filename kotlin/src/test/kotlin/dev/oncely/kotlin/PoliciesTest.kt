package dev.oncely.kotlin

import dev.oncely.client.IntentOutcome
import dev.oncely.client.RetryPolicy
import dev.oncely.client.InMemoryIntentStore
import dev.oncely.client.event.IntentListener
import dev.oncely.testing.Fault
import dev.oncely.testing.FaultScript
import java.time.Duration as JavaDuration
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

/** `retryPolicy { }` and `idempotentClient { }` are the Java builders, with `kotlin.time` durations. */
class PoliciesTest {
  @Test
  fun retry_policy_block_sets_what_the_java_builder_sets() {
    val policy = retryPolicy {
      maxAttempts(4)
      baseDelay(100.milliseconds)
      maxDelay(2.seconds)
      deadline(30.seconds)
      attemptTimeout(5.seconds)
    }

    assertThat(policy.maxAttempts()).isEqualTo(4)
    assertThat(policy.baseDelay()).isEqualTo(JavaDuration.ofMillis(100))
    assertThat(policy.maxDelay()).isEqualTo(JavaDuration.ofSeconds(2))
    assertThat(policy.deadline()).isEqualTo(JavaDuration.ofSeconds(30))
    assertThat(policy.attemptTimeout()).isEqualTo(JavaDuration.ofSeconds(5))
  }

  @Test
  fun a_refused_setting_is_refused_as_in_java() {
    assertThatThrownBy { retryPolicy { deadline(0.seconds) } }
      .isInstanceOf(IllegalArgumentException::class.java).hasMessageContaining("deadline")
    assertThatThrownBy { retryPolicy { baseDelay(3.seconds); maxDelay(1.seconds) } }
      .isInstanceOf(IllegalArgumentException::class.java).hasMessageContaining("maxDelay")
  }

  @Test
  fun a_client_built_in_one_block_drives_an_intent_with_its_policy() = runBlocking<Unit> {
    Kit(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build()).use { kit ->
      val client = idempotentClient {
        store(InMemoryIntentStore())
        listener(IntentListener.NONE)
        retryPolicy(retryPolicy { maxAttempts(3); baseDelay(10.milliseconds); maxDelay(20.milliseconds) })
        keyRetention(24.hours)
      }
      client.use {
        val outcome = it.executeSuspending(intentSpec {
          operation("create-payment"); scope("tenant-42"); businessId("o-1")
          post(kit.url("/payments").toString()); jsonBody("""{"order":"o-1"}""")
        })

        assertThat(outcome).isInstanceOf(IntentOutcome.Completed::class.java)
        assertThat(kit.requests()).hasSize(2)
        assertThat(kit.server.ledger().countOf("o-1")).isEqualTo(1)
      }
    }
    assertThat(RetryPolicy.defaults().maxAttempts()).isEqualTo(RetryPolicy.DEFAULT_MAX_ATTEMPTS)
  }
}
