package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IntentSpecTest {
  private static final byte[] SECRET = "0123456789abcdef0123".getBytes(StandardCharsets.UTF_8);

  private static IntentSpec.Builder valid() {
    return IntentSpec.builder()
        .operation("create-payment")
        .scope("tenant-a")
        .post("https://api.example.test/payments");
  }

  @Test
  void random_keys_carry_at_least_128_bits_and_are_url_safe() {
    Set<String> keys = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      String key = valid().build().key();
      assertThat(key).matches("[A-Za-z0-9_-]+");
      assertThat(Base64.getUrlDecoder().decode(key).length * 8).isGreaterThanOrEqualTo(128);
      keys.add(key);
    }
    assertThat(keys).hasSize(1000);
  }

  @Test
  void derived_keys_are_stable_for_one_business_id_and_scoped() {
    KeyStrategy derived = KeyStrategy.derived(SECRET);
    String a = valid().businessId("order-7").keyStrategy(derived).build().key();
    String again = valid().businessId("order-7").keyStrategy(derived).build().key();
    String otherScope = valid().scope("tenant-b").businessId("order-7").keyStrategy(derived)
        .build().key();
    String otherOperation = valid().operation("refund").businessId("order-7")
        .keyStrategy(derived).build().key();
    String otherSecret = valid().businessId("order-7")
        .keyStrategy(KeyStrategy.derived("another-secret-of-16+".getBytes(StandardCharsets.UTF_8)))
        .build().key();

    assertThat(again).isEqualTo(a);
    assertThat(a).isNotEqualTo(otherScope).isNotEqualTo(otherOperation).isNotEqualTo(otherSecret);
    assertThat(a).matches("[A-Za-z0-9_-]{43}");
  }

  @Test
  void derived_keys_need_a_business_id() {
    assertThatThrownBy(() -> valid().keyStrategy(KeyStrategy.derived(SECRET)).build())
        .isInstanceOf(InvalidIntentException.class)
        .satisfies(e -> assertThat(((InvalidIntentException) e).setting()).isEqualTo("businessId"));
  }

  @Test
  void derived_keys_refuse_a_short_secret() {
    assertThatThrownBy(() -> KeyStrategy.derived(new byte[8]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("16");
  }

  @Test
  void json_fingerprint_ignores_key_order_and_whitespace() {
    String a = valid().jsonBody("{\"amount\":1000,\"currency\":\"JPY\",\"items\":[{\"b\":1,\"a\":2}]}")
        .build().fingerprint();
    String b = valid().jsonBody("{ \"items\" : [ {\"a\":2, \"b\":1} ],\n \"currency\":\"JPY\","
        + " \"amount\": 1000 }").build().fingerprint();

    assertThat(a).isEqualTo(b).matches("v2:[0-9a-f]{64}");
  }

  @Test
  void json_fingerprint_sees_changed_values_and_array_order() {
    String base = valid().jsonBody("{\"amount\":1000,\"tags\":[1,2]}").build().fingerprint();

    assertThat(valid().jsonBody("{\"amount\":1001,\"tags\":[1,2]}").build().fingerprint())
        .isNotEqualTo(base);
    assertThat(valid().jsonBody("{\"amount\":1000,\"tags\":[2,1]}").build().fingerprint())
        .isNotEqualTo(base);
  }

  @Test
  void volatile_fields_are_left_out_of_the_fingerprint() {
    String a = valid().jsonBody("{\"amount\":1,\"sentAt\":\"10:00\",\"meta\":{\"trace\":\"x\",\"k\":1}}")
        .volatileFields("sentAt", "/meta/trace").build().fingerprint();
    String b = valid().jsonBody("{\"amount\":1,\"sentAt\":\"10:05\",\"meta\":{\"trace\":\"y\",\"k\":1}}")
        .volatileFields("sentAt", "/meta/trace").build().fingerprint();
    String changed = valid()
        .jsonBody("{\"amount\":2,\"sentAt\":\"10:05\",\"meta\":{\"trace\":\"y\",\"k\":1}}")
        .volatileFields("sentAt", "/meta/trace").build().fingerprint();

    assertThat(a).isEqualTo(b).isNotEqualTo(changed);
  }

  @Test
  void exact_body_bytes_are_kept() {
    String json = "{ \"amount\" :  1000 }";
    IntentSpec spec = valid().jsonBody(json).build();

    assertThat(spec.body()).isEqualTo(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void non_json_fingerprint_covers_bytes_and_media_type() {
    byte[] bytes = "a=1&b=2".getBytes(StandardCharsets.UTF_8);
    String form = valid().body(bytes, "application/x-www-form-urlencoded").build().fingerprint();
    String text = valid().body(bytes, "text/plain").build().fingerprint();
    String reordered = valid().body("b=2&a=1".getBytes(StandardCharsets.UTF_8),
        "application/x-www-form-urlencoded").build().fingerprint();

    assertThat(form).isNotEqualTo(text).isNotEqualTo(reordered);
  }

  @Test
  void empty_operation_is_refused() {
    assertThatThrownBy(() -> IntentSpec.builder().operation(" "))
        .isInstanceOf(InvalidIntentException.class)
        .hasMessageStartingWith("operation:");
    assertThatThrownBy(() -> IntentSpec.builder().scope("a").post("https://x.test/").build())
        .isInstanceOf(InvalidIntentException.class)
        .hasMessage("operation: is required");
  }

  @Test
  void bad_url_is_refused() {
    assertThatThrownBy(() -> valid().url("ftp://files.example.test/x"))
        .isInstanceOf(InvalidIntentException.class)
        .satisfies(e -> assertThat(((InvalidIntentException) e).setting()).isEqualTo("url"));
    assertThatThrownBy(() -> valid().url("not a url"))
        .isInstanceOf(InvalidIntentException.class);
  }

  @Test
  void body_over_the_limit_is_refused_with_its_size() {
    assertThatThrownBy(() -> valid().maxBodyBytes(10).jsonBody("{\"amount\":1000000}").build())
        .isInstanceOfSatisfying(BodyTooLargeException.class, e -> {
          assertThat(e.size()).isEqualTo(18);
          assertThat(e.limit()).isEqualTo(10);
        });
  }

  @Test
  void json_fingerprint_on_a_non_json_body_is_refused() {
    assertThatThrownBy(() -> valid().body(new byte[] {1, 2, 3}, "application/octet-stream")
        .volatileFields("sentAt").build())
        .isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("volatileFields")
        .hasMessageContaining("application/octet-stream");
  }

  @Test
  void malformed_json_declared_as_json_is_refused_without_echoing_it() {
    assertThatThrownBy(() -> valid().jsonBody("{\"card\":\"4242\",").build())
        .isInstanceOf(InvalidIntentException.class)
        .hasMessageNotContaining("4242");
    assertThatThrownBy(() -> valid().jsonBody("{\"a\":1,\"a\":2}").build())
        .isInstanceOf(InvalidIntentException.class);
  }

  @Test
  void credentials_cannot_be_stored_as_intent_headers() {
    assertThatThrownBy(() -> valid().header("Authorization", "Bearer t"))
        .isInstanceOf(InvalidIntentException.class)
        .hasMessageContaining("HeaderProvider")
        .hasMessageNotContaining("Bearer");
  }

  @Test
  void body_on_get_is_refused() {
    assertThatThrownBy(() -> valid().method("GET").jsonBody("{}").build())
        .isInstanceOf(InvalidIntentException.class);
  }

  @Test
  void to_string_never_shows_key_or_body() {
    IntentSpec spec = valid().jsonBody("{\"card\":\"4242\"}").build();

    assertThat(spec.toString()).doesNotContain(spec.key()).doesNotContain("4242")
        .contains(spec.id().safeKey());
  }

  @Test
  void to_builder_keeps_the_key() {
    IntentSpec spec = valid().jsonBody("{}").build();

    assertThat(spec.toBuilder().build().key()).isEqualTo(spec.key());
    assertThat(spec.toBuilder().build().fingerprint()).isEqualTo(spec.fingerprint());
  }
}
