package dev.oncely.examples.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.dialect.StatusUrlResolver;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import okhttp3.HttpUrl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The status URL that {@code --status-url-pointer} and {@code --status-url-template} find. */
class StatusUrlFromBodyTest {
  private static final HttpUrl TARGET = HttpUrl.get("https://api.example/v1/payments");

  private static LoadSettings.Builder settings() {
    return LoadSettings.builder().target(TARGET.toString()).storeDir(Path.of("unused"));
  }

  private static StatusUrlResolver resolver(String pointer, String template) {
    return settings().statusUrlPointer(pointer).statusUrlTemplate(template).build()
        .statusUrlResolver();
  }

  /** The status URL the engine would poll: the resolver's answer resolved against the target. */
  private static HttpUrl polled(StatusUrlResolver resolver, String body) {
    String url = resolver.statusUrl(StoredResponse.of(202,
        Map.of("Content-Type", List.of("application/json")),
        body.getBytes(StandardCharsets.UTF_8)));
    return url == null ? null : TARGET.resolve(url);
  }

  @Test
  void the_value_at_the_pointer_goes_into_the_template_resolved_against_the_target() {
    StatusUrlResolver r = resolver("/id", "/v1/payments/{}");

    assertThat(polled(r, "{\"id\":\"pay_000042\",\"status\":\"processing\"}"))
        .hasToString("https://api.example/v1/payments/pay_000042");
    assertThat(polled(r, "{\"id\":42}")).hasToString("https://api.example/v1/payments/42");
    assertThat(polled(resolver("/data/0/ref", "/v1/status/{}?full=1"),
        "{\"data\":[{\"ref\":\"r 1\"}]}"))
        .hasToString("https://api.example/v1/status/r%201?full=1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"../../admin", "//evil.example/x", "https://evil.example/x",
      "a?b=c#d", "..%2F..%2Fadmin", "\\\\evil.example\\\\x", "@evil.example"})
  void a_hostile_value_stays_one_path_segment_on_the_target_origin(String id) throws Exception {
    HttpUrl url = polled(resolver("/id", "/v1/payments/{}"),
        new ObjectMapper().writeValueAsString(Map.of("id", id)));

    assertThat(url.scheme()).isEqualTo("https");
    assertThat(url.host()).isEqualTo("api.example");
    assertThat(url.port()).isEqualTo(443);
    assertThat(url.pathSegments()).hasSize(3).startsWith("v1", "payments");
    assertThat(url.pathSegments().get(2)).isEqualTo(id);
    assertThat(url.query()).isNull();
    assertThat(url.fragment()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"{\"id\":\".\"}", "{\"id\":\"..\"}", "{\"id\":\"\"}", "{\"id\":null}",
      "{\"id\":{\"x\":1}}", "{\"id\":1.5}", "{\"other\":\"pay_1\"}", "not json", ""})
  void a_dot_segment_missing_empty_or_non_scalar_value_names_no_status_url(String body) {
    assertThat(polled(resolver("/id", "/v1/payments/{}"), body)).isNull();
  }

  /** Where a value could name the host, the scheme or query parameters, or there is no {}. */
  @ParameterizedTest
  @ValueSource(strings = {"{}", "{}/status", "h{}", "//{}/status", "/\\{}", "//api.example/{}",
      "https://api.example/{}", "payments/{}", "/payments?id={}", "/payments#{}",
      "/payments/{}?again={}", "/payments/", ""})
  void a_template_where_the_value_is_not_in_an_absolute_path_is_refused(String template) {
    assertThatThrownBy(() -> settings().statusUrlTemplate(template))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("status-url-template must be an absolute path with {}")
        .hasMessageEndingWith(", was '" + template + "'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/{}", "/payments/{}", "/v1/payments/{}/status?full=1",
      "/payments/{}.json#top", "/a/{}/b/{}"})
  void a_template_with_the_value_in_an_absolute_path_is_accepted(String template) {
    assertThat(settings().statusUrlTemplate(template)).isNotNull();
  }

  @Test
  void each_setting_is_checked_and_they_go_together() {
    assertThatThrownBy(() -> settings().statusUrlPointer("id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("status-url-pointer must be a JSON Pointer such as /id, was 'id'");
    assertThatThrownBy(() -> settings().statusUrlTemplate("/payments/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("status-url-template must be an absolute path with {} where the value goes"
            + " (not in the query), such as /payments/{}, was '/payments/'");
    assertThatThrownBy(() -> settings().statusUrlPointer("/id").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("set both or neither");
    assertThatThrownBy(() -> settings().statusUrlTemplate("/p/{}").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("set both or neither");
    LoadSettings none = settings().build();
    assertThat(none.statusUrlResolver()).isSameAs(StatusUrlResolver.NONE);
    assertThat(none.statusUrlPointer()).isNull();
    assertThat(none.statusUrlTemplate()).isNull();
  }

  @Test
  void the_dialect_answers_as_its_base_except_for_the_resolver() throws Exception {
    StatusUrlResolver r = resolver("/id", "/v1/payments/{}");
    for (Dialect base : List.of(Dialects.ietf(), Dialects.stripe())) {
      Dialect d = DialectWithStatusUrl.of(base, r);
      StoredResponse replayed409 = StoredResponse.of(409,
          Map.of("Idempotent-Replayed", List.of("true")), new byte[0]);

      assertThat(d.statusUrlResolver()).isSameAs(r);
      assertThat(d.name()).isEqualTo(base.name());
      assertThat(d.keyHeader()).isEqualTo(base.keyHeader());
      assertThat(d.formatKey("k\"1")).isEqualTo(base.formatKey("k\"1"));
      assertThat(d.parseKey("\"k\"")).isEqualTo(base.parseKey("\"k\""));
      assertThat(d.classify(replayed409)).isEqualTo(base.classify(replayed409));
      assertThat(d.isReplay(replayed409)).isEqualTo(base.isReplay(replayed409));
      assertThat(d.keyRetention()).isEqualTo(base.keyRetention());
      assertThat(d.trustsRefusalAfterDelivery(409))
          .isEqualTo(base.trustsRefusalAfterDelivery(409));
      assertThat(d.statusInterpreter()).isSameAs(base.statusInterpreter());
      assertThat(d.maxBlindResends()).isEqualTo(base.maxBlindResends());
      assertThat(DialectWithStatusUrl.of(base, StatusUrlResolver.NONE)).isSameAs(base);
    }
    // A method added to Dialect later, default or not, must be delegated too.
    for (Method m : Dialect.class.getMethods()) {
      if (!java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
        assertThat(DialectWithStatusUrl.class.getDeclaredMethod(m.getName(),
            m.getParameterTypes())).as(m.toString()).isNotNull();
      }
    }
  }
}
