package dev.oncely.kotlin

import dev.oncely.client.InMemoryIntentStore
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

/** `IntentStore.outcomeOf(tag)` finds a tagged call's record by its business id, or says it has none. */
class StoresTest {
  private val store = InMemoryIntentStore()

  @Test
  fun a_tag_whose_call_never_stored_a_record_has_no_outcome() {
    assertThat(store.outcomeOf(intentTag { operation("create-payment"); scope("tenant-42"); businessId("o-1") }))
      .isNull()
  }

  @Test
  fun a_tag_without_business_id_is_refused_naming_the_rule() {
    assertThatThrownBy { store.outcomeOf(intentTag { operation("create-payment"); scope("tenant-42") }) }
      .isInstanceOf(IllegalArgumentException::class.java)
      .hasMessageContaining("no business id")
  }
}
