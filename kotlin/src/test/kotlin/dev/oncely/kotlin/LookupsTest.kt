package dev.oncely.kotlin

import dev.oncely.client.IdempotentClient
import dev.oncely.client.InMemoryIntentStore
import dev.oncely.client.IntentId
import dev.oncely.client.IntentOutcome
import dev.oncely.client.IntentState
import dev.oncely.client.event.IntentListener
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

/** One convention for look-ups: `...OrNull` answers null where Java answers an empty Optional. */
class LookupsTest {
  private val store = InMemoryIntentStore()
  private val order = intentTag { operation("create-payment"); scope("tenant-42"); businessId("o-1") }

  @Test
  fun look_ups_without_a_record_answer_null() {
    IdempotentClient.builder().store(store).listener(IntentListener.NONE).build().use { client ->
      val id = IntentId.of("tenant-42", "create-payment", "k-1")
      assertThat(store.getOrNull(id)).isNull()
      assertThat(store.findByBusinessIdOrNull("tenant-42", "create-payment", "o-1")).isNull()
      assertThat(client.outcomeOrNull(id)).isNull()
      assertThat(client.outcomeOrNull(order)).isNull()
    }
    val oncely = idempotencyInterceptor { store(store) }
    assertThat(oncely.outcomeOrNull(order)).isNull()
  }

  @Test
  fun look_ups_with_a_record_answer_it() = runBlocking<Unit> {
    Kit().use { kit ->
      IdempotentClient.builder().store(store).listener(IntentListener.NONE).build().use { client ->
        val spec = intentSpec {
          operation("create-payment"); scope("tenant-42"); businessId("o-1")
          post(kit.url("/payments").toString()); jsonBody("""{"order":"o-1"}""")
        }
        client.executeSuspending(spec)

        assertThat(store.getOrNull(spec.id())!!.state()).isEqualTo(IntentState.COMPLETED)
        assertThat(store.findByBusinessIdOrNull("tenant-42", "create-payment", "o-1")!!.id()).isEqualTo(spec.id())
        assertThat(client.outcomeOrNull(order)).isInstanceOf(IntentOutcome.Completed::class.java)
        assertThat(idempotencyInterceptor { store(store) }.outcomeOrNull(spec.id()))
          .isInstanceOf(IntentOutcome.Completed::class.java)
      }
    }
  }

  @Test
  fun a_tag_without_business_id_is_refused_naming_the_rule() {
    val untagged = intentTag { operation("create-payment"); scope("tenant-42") }
    assertThatThrownBy { idempotencyInterceptor { store(store) }.outcomeOrNull(untagged) }
      .isInstanceOf(IllegalArgumentException::class.java)
      .hasMessageContaining("no business id")
  }

  @Test
  @Suppress("DEPRECATION")
  fun the_deprecated_store_look_up_still_reads_the_store() {
    assertThat(store.outcomeOf(order)).isNull()
  }
}
