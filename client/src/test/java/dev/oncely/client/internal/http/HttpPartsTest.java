package dev.oncely.client.internal.http;

import dev.oncely.client.internal.ParsedUrls;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.RequestBody;
import org.junit.jupiter.api.Test;

class HttpPartsTest {
  @Test
  void headers_merge_names_case_insensitively_under_the_first_spelling_in_arrival_order() {
    Headers headers = new Headers.Builder()
        .add("Content-Type", "application/json")
        .add("Link", "<a>")
        .add("link", "<b>")
        .add("X-One", "1")
        .add("LINK", "<c>")
        .build();

    Map<String, List<String>> map = HttpParts.toMap(headers);

    assertThat(map.keySet()).containsExactly("Content-Type", "Link", "X-One");
    assertThat(map.get("Link")).containsExactly("<a>", "<b>", "<c>");
  }

  @Test
  void a_json_body_carries_the_media_type_it_was_given() throws Exception {
    WireWrites writes = new WireWrites();
    RequestBody json = HttpParts.body("POST", new byte[] {'{', '}'},
        "application/json; charset=utf-8", writes);
    RequestBody other = HttpParts.body("POST", new byte[] {1}, "application/vnd.api+json",
        writes);

    assertThat(json.contentType()).isEqualTo(MediaType.parse("application/json; charset=utf-8"));
    assertThat(json.contentType().toString()).isEqualTo("application/json; charset=utf-8");
    assertThat(json.contentLength()).isEqualTo(2);
    assertThat(json.isOneShot()).isTrue();
    assertThat(other.contentType()).isEqualTo(MediaType.parse("application/vnd.api+json"));
    assertThat(HttpParts.body("GET", new byte[0], null, writes)).isNull();
  }

  @Test
  void parsed_urls_are_what_okhttp_parses_cached_or_not() {
    for (String url : List.of("https://api.test/payments", "http://h:8080/a?b=c#d",
        "HTTPS://API.TEST/%7Euser/")) {
      assertThat(ParsedUrls.parse(url)).isEqualTo(HttpUrl.parse(url));
      assertThat(ParsedUrls.parse(url)).isEqualTo(HttpUrl.parse(url));
    }
    assertThat(ParsedUrls.parse("ftp://api.test/")).isNull();
    assertThat(ParsedUrls.parse("not a url")).isNull();
  }
}
