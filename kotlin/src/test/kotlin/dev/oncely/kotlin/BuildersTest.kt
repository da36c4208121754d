package dev.oncely.kotlin

import dev.oncely.client.IntentSpec
import dev.oncely.client.IntentTag
import dev.oncely.client.InvalidIntentException
import dev.oncely.client.KeyStrategy
import okhttp3.Request
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

/** The DSL builders are the Java builders with a receiver: same checks, same values. */
class BuildersTest {
  private val secret = ByteArray(32) { it.toByte() }

  @Test
  fun intent_spec_builds_what_the_java_builder_builds() {
    val kotlin = intentSpec {
      operation("create-payment")
      scope("tenant-42")
      post("https://api.example.com/payments")
      jsonBody("""{"amount":1000,"order":"o-7"}""")
      businessId("o-7")
      keyStrategy(KeyStrategy.derived(secret))
    }
    val java = IntentSpec.builder()
      .operation("create-payment").scope("tenant-42")
      .post("https://api.example.com/payments")
      .jsonBody("""{"order":"o-7", "amount":1000}""")
      .businessId("o-7")
      .keyStrategy(KeyStrategy.derived(secret))
      .build()

    assertThat(kotlin.id()).isEqualTo(java.id())
    assertThat(kotlin.fingerprint()).isEqualTo(java.fingerprint())
    assertThat(kotlin.method()).isEqualTo("POST")
    val businessId: String? = kotlin.businessId()
    assertThat(businessId).isEqualTo("o-7")
  }

  @Test
  fun intent_spec_refuses_a_missing_url_naming_the_setting() {
    assertThatThrownBy { intentSpec { operation("create-payment"); scope("tenant-42") } }
      .isInstanceOf(InvalidIntentException::class.java)
      .hasMessageContaining("url")
  }

  @Test
  fun intent_spec_mints_a_new_random_key_each_time() {
    val block: IntentSpec.Builder.() -> Unit = {
      operation("create-payment")
      scope("tenant-42")
      post("https://api.example.com/payments")
    }
    assertThat(intentSpec(block).key()).isNotEqualTo(intentSpec(block).key())
  }

  @Test
  fun intent_tag_builds_the_identity_and_reads_a_missing_business_id_as_null() {
    val tag = intentTag {
      operation("create-payment")
      scope("tenant-42")
      businessId("o-7")
    }
    val anonymous = intentTag {
      operation("create-payment")
      scope("tenant-42")
    }

    assertThat(tag.operation()).isEqualTo("create-payment")
    assertThat(tag.scope()).isEqualTo("tenant-42")
    assertThat(tag.businessId()).isEqualTo("o-7")
    // IntentTag.businessId() is @Nullable: Kotlin sees String?, not a platform type.
    assertThat(anonymous.businessId() ?: "none").isEqualTo("none")
  }

  @Test
  fun intent_tag_refuses_a_derived_key_without_a_business_id() {
    assertThatThrownBy {
      intentTag {
        operation("create-payment")
        scope("tenant-42")
        keyStrategy(KeyStrategy.derived(secret))
      }
    }.isInstanceOf(InvalidIntentException::class.java).hasMessageContaining("businessId")
  }

  @Test
  fun request_intent_tags_the_request_under_the_class_the_interceptor_reads() {
    val tag = intentTag { operation("create-payment"); scope("tenant-42"); businessId("o-7") }
    val request = Request.Builder().url("https://api.example.com/payments").intent(tag).build()

    assertThat(request.tag(IntentTag::class.java)).isSameAs(tag)
  }
}
