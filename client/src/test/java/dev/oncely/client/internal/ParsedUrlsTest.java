package dev.oncely.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import okhttp3.HttpUrl;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The cached parse answers exactly what OkHttp's own parse does, for http(s) and for the rest. */
class ParsedUrlsTest {
  @ParameterizedTest
  @ValueSource(strings = {"https://api.example.com/payments", "HTTP://Example.com:8080/a?b=c",
      "  https://example.com/padded  ", "\thttp://example.com/", "oncely:receipt",
      "ftp://example.com/", "mailto:a@example.com", "/relative/path", "", "http:",
      "https//missing-colon.example.com", "Https://mixed.example.com/x"})
  void parse_agrees_with_okhttp(String url) {
    HttpUrl expected = HttpUrl.parse(url);

    assertThat(ParsedUrls.parse(url)).isEqualTo(expected);
    assertThat(ParsedUrls.parse(url)).as("from the cache").isEqualTo(expected);
  }
}
