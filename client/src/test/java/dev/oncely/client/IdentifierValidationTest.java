package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One validation of identifiers and header names at the builders:
 * whatever a later step (the store, OkHttp, the wire) would refuse is refused when the value is
 * built, with a typed error that never echoes a key.
 */
class IdentifierValidationTest {
  private static final byte[] SECRET = "0123456789abcdef0123".getBytes(StandardCharsets.UTF_8);

  private static IntentSpec.Builder valid() {
    return IntentSpec.builder()
        .operation("create-payment")
        .scope("tenant-a")
        .post("https://api.example.test/payments");
  }

  @Test
  void header_names_must_be_tokens_so_a_colon_cannot_hide_a_credential_or_a_second_key() {
    for (String name : List.of("Authorization:Bearer", "Idempotency-Key:x", "X Trace", "X-A\tB",
        "", "X(1)", "Ünïcode")) {
      assertThatThrownBy(() -> valid().header(name, "v")).as(name)
          .isInstanceOf(InvalidIntentException.class).hasMessageContaining("HTTP token");
    }
    assertThat(valid().header("X-Trace_1.a!#$%&'*+^`|~", "v").build().headers()).hasSize(1);
  }

  @Test
  void a_url_with_user_info_is_refused_and_never_echoed() {
    for (String url : List.of("https://alice:pw@api.example.test/p", "https://alice@api.example.test/p",
        "https://:pw@api.example.test/p")) {
      assertThatThrownBy(() -> valid().url(url)).as(url)
          .isInstanceOf(InvalidIntentException.class).hasMessageContaining("user info")
          .hasMessageNotContaining("pw");
    }
  }

  @Test
  void lone_surrogates_are_refused_in_every_text_id() {
    String lone = "t\uD800";
    assertThatThrownBy(() -> valid().scope(lone)).isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("surrogate");
    assertThatThrownBy(() -> valid().operation("op\uDC00x")).isInstanceOf(InvalidIntentException.class);
    assertThatThrownBy(() -> valid().businessId("order-\uD800"))
        .isInstanceOf(InvalidIntentException.class);
    assertThatThrownBy(() -> IntentId.of(lone, "op", "k")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IntentTag.builder().scope(lone)).isInstanceOf(InvalidIntentException.class);
    assertThat(valid().scope("tenant-\uD83D\uDE00").build().id().scope())
        .as("a surrogate pair is well-formed").endsWith("\uD83D\uDE00");
  }

  @Test
  void derived_keys_of_different_business_ids_never_collide_through_encoding() {
    assertThatThrownBy(() -> valid().keyStrategy(KeyStrategy.derived(SECRET)).businessId("order-\uD800"))
        .isInstanceOf(InvalidIntentException.class);
    assertThat(valid().keyStrategy(KeyStrategy.derived(SECRET)).businessId("order-?").build().key())
        .isNotBlank();
  }

  @Test
  void an_existing_key_a_header_cannot_carry_is_refused_at_build_time() {
    for (String key : List.of("ключ", "a b", "tab\tkey", "k\uD800", " ", "x".repeat(256))) {
      assertThatThrownBy(() -> KeyStrategy.existing(key)).as(key)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageNotContaining(key.trim().isEmpty() ? "\u0000" : key);
    }
    assertThatThrownBy(() -> IntentId.of("s", "o", "ключ")).isInstanceOf(IllegalArgumentException.class);
    assertThat(valid().keyStrategy(KeyStrategy.existing("order-7_key.~!\"")).build().key())
        .isEqualTo("order-7_key.~!\"");
  }

  @Test
  void a_dialect_key_header_must_be_a_token() {
    assertThatThrownBy(() -> dev.oncely.client.dialect.Dialects.custom("x").keyHeader("Idempotency-Key:x"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
