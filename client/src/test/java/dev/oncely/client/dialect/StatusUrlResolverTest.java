package dev.oncely.client.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatusUrlResolverTest {
  private static final StatusUrlResolver BY_ID = StatusUrlResolver.jsonPointer("/id",
      "/v1/payments/{}");

  private static String resolve(String body) {
    return BY_ID.statusUrl(StoredResponse.of(202, Map.of(),
        body.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void an_id_becomes_one_percent_encoded_path_segment() {
    assertThat(resolve("{\"id\":\"p_42\"}")).isEqualTo("/v1/payments/p_42");
    assertThat(resolve("{\"id\":\"../../admin\"}")).isEqualTo("/v1/payments/..%2F..%2Fadmin");
    assertThat(resolve("{\"id\":7}")).isEqualTo("/v1/payments/7");
  }

  @Test
  void dot_segments_and_empty_values_name_no_status_url() {
    assertThat(resolve("{\"id\":\".\"}")).isNull();
    assertThat(resolve("{\"id\":\"..\"}")).isNull();
    assertThat(resolve("{\"id\":\"\"}")).isNull();
    assertThat(resolve("{\"id\":null}")).isNull();
    assertThat(resolve("not json")).isNull();
  }
}
