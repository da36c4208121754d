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
}
