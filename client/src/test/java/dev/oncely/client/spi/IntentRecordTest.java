package dev.oncely.client.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoredResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IntentRecordTest {
  @Test
  void secret_headers_are_refused_in_any_case() {
    for (String name : List.of("Authorization", "cookie", "PROXY-AUTHORIZATION")) {
      assertThatThrownBy(() -> IntentStoreContract.newRecord("s", "op", "k").toBuilder()
              .headers(Map.of(name, List.of("secret"))).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(name)
          .hasMessageNotContaining("secret\"");
    }
  }

  @Test
  void stored_response_drops_set_cookie() {
    StoredResponse response = StoredResponse.of(200,
        Map.of("Set-Cookie", List.of("session=1"), "Location", List.of("/p/1")), new byte[0]);
    assertThat(response.headers()).containsOnlyKeys("Location");
  }

  @Test
  void to_string_never_prints_the_key() {
    IntentRecord r = IntentStoreContract.newRecord("tenant", "op", "very-secret-key-123");
    assertThat(r.toString()).doesNotContain("very-secret-key-123").contains("k#");
    assertThat(r.id().toString()).doesNotContain("very-secret-key-123");
  }

  @Test
  void body_is_copied_in_and_out() {
    byte[] body = {1, 2, 3};
    IntentRecord r = IntentStoreContract.newRecord("s", "op", "k").toBuilder()
        .body(body, "application/octet-stream").build();
    body[0] = 9;
    r.body()[1] = 9;
    assertThat(r.body()).containsExactly(1, 2, 3);
  }

  @Test
  void intent_id_refuses_blank_long_and_control_characters() {
    assertThatThrownBy(() -> IntentId.of(" ", "op", "k"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scope");
    assertThatThrownBy(() -> IntentId.of("s", "x".repeat(256), "k"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("255");
    assertThatThrownBy(() -> IntentId.of("s", "op", "k\n"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key");
  }

  @Test
  void a_successor_keeps_every_unchanged_field_and_still_copies_what_was_set() {
    IntentRecord first = IntentStoreContract.newRecord("s", "op", "k").toBuilder()
        .headers(Map.of("X-Request", List.of("a")))
        .body(new byte[] {1, 2}, "application/octet-stream")
        .traceContext(Map.of("traceparent", "00-1-2-01"))
        .build();
    IntentRecord next = first.successor().attempts(3).build();

    assertThat(next.headers()).isEqualTo(first.headers());
    assertThat(next.body()).containsExactly(1, 2);
    assertThat(next.traceContext()).isEqualTo(first.traceContext());
    assertThat(next.revision()).isEqualTo(first.revision() + 1);
    assertThat(next.attempts()).isEqualTo(3);

    byte[] changed = {7};
    IntentRecord third = next.successor().body(changed, "application/octet-stream").build();
    changed[0] = 8;
    assertThat(third.body()).containsExactly(7);
    assertThatThrownBy(() -> next.successor().headers(Map.of("Cookie", List.of("c"))).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Cookie");
  }

  @Test
  void intent_id_hash_and_safe_key_are_stable() {
    IntentId id = IntentId.of("s", "op", "k");
    assertThat(id.hashCode()).isEqualTo(java.util.Objects.hash("s", "op", "k"))
        .isEqualTo(IntentId.of("s", "op", "k").hashCode());
    assertThat(id.safeKey()).isEqualTo(id.safeKey()).matches("k#[0-9a-f]{12}")
        .isEqualTo(IntentId.of("other", "op", "k").safeKey());
  }
}
