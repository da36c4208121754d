package dev.oncely.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class KeyHeaderTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
      "abc              | abc",
      "'\"abc\"'        | abc",
      "'  \"a b\"  '    | a b",
      "'\"a\\\"b\"'     | a\"b",
      "'\"a\\\\b\"'     | a\\b",
      "8e1f-uuid-like   | 8e1f-uuid-like",
  })
  void quoted_structured_field_strings_and_plain_tokens_are_both_accepted(
      String header, String key) throws Exception {
    assertThat(KeyHeader.read(List.of(header))).isEqualTo(key);
  }

  @ParameterizedTest
  @ValueSource(strings = {"\"abc", "\"a\"b", "\"a\\xb\"", "\"\"", "k\u00e9y"})
  void malformed_keys_are_refused_without_echoing_them(String header) {
    assertThatThrownBy(() -> KeyHeader.read(List.of(header)))
        .isInstanceOf(KeyHeader.MalformedKeyException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(header.trim()));
  }

  @Test
  void blank_key_is_refused_as_empty() {
    assertThatThrownBy(() -> KeyHeader.read(List.of("   "))).hasMessageContaining("is empty");
  }

  @Test
  void key_longer_than_255_characters_is_refused_with_the_numbers() {
    assertThatThrownBy(() -> KeyHeader.read(List.of("k".repeat(256))))
        .hasMessageContaining("256").hasMessageContaining("255");
  }

  @Test
  void key_sent_twice_is_refused_and_absent_key_is_null() throws Exception {
    assertThatThrownBy(() -> KeyHeader.read(List.of("a", "b")))
        .hasMessageContaining("sent 2 times");
    assertThat(KeyHeader.read(null)).isNull();
    assertThat(KeyHeader.read(List.of())).isNull();
  }
}
