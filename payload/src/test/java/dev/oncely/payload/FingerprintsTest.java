package dev.oncely.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FingerprintsTest {
  private static final String JSON = "application/json";

  private static String json(String text, String... volatileFields) throws IOException {
    return Fingerprints.ofJson(text.getBytes(StandardCharsets.UTF_8), List.of(volatileFields));
  }

  @Test
  void fingerprints_carry_the_version_prefix() throws IOException {
    assertThat(json("{\"a\":1}")).startsWith("v2:").hasSize(3 + 64);
    assertThat(Fingerprints.ofBytes(new byte[] {1, 2}, "text/plain")).startsWith("v2:");
  }

  @Test
  void numbers_are_compared_by_exact_decimal_value() throws IOException {
    String thousand = json("{\"amount\":1000}");
    assertThat(json("{\"amount\":1000.0}")).isEqualTo(thousand);
    assertThat(json("{\"amount\":1e3}")).isEqualTo(thousand);
    assertThat(json("{\"amount\":1.000E+3}")).isEqualTo(thousand);
    assertThat(json("{\"amount\":10000e-1}")).isEqualTo(thousand);
    assertThat(json("{\"amount\":1001}")).isNotEqualTo(thousand);

    assertThat(json("[0]")).isEqualTo(json("[-0]")).isEqualTo(json("[0.0]"))
        .isEqualTo(json("[0e7]"));
    assertThat(json("[1.5]")).isEqualTo(json("[15e-1]")).isEqualTo(json("[1.50]"));
    assertThat(json("[-1.5]")).isNotEqualTo(json("[1.5]"));
  }

  @Test
  void numbers_never_lose_precision() throws IOException {
    assertThat(json("[0.1]")).isNotEqualTo(json("[0.10000000000000001]"));
    assertThat(json("[12345678901234567890123456789]"))
        .isNotEqualTo(json("[12345678901234567890123456788]"));
    assertThat(json("[9007199254740993]")).isNotEqualTo(json("[9007199254740992]"));
    assertThat(json("[1e400]")).isNotEqualTo(json("[1e401]"));
  }

  @Test
  void member_order_and_whitespace_do_not_change_the_fingerprint() throws IOException {
    String sorted = json("{\"a\":{\"x\":1,\"y\":[1,2]},\"b\":true,\"c\":null}");
    assertThat(json(" { \"c\" : null , \"b\" : true , \"a\" : { \"y\" : [ 1 , 2 ] , \"x\" : 1 } } "))
        .isEqualTo(sorted);
  }

  @Test
  void the_version_2_form_of_a_nested_unsorted_document_is_pinned() throws IOException {
    // Known answers computed before the member sort moved into the output buffer: a persisted
    // fingerprint must never change with the implementation.
    byte[] doc = ("{\"z\":{\"k\":[{\"b\":1,\"a\":2.50},{\"d\":\"\u00e9\",\"c\":null}],"
        + "\"j\":true},\"amount\":1000,\"m\":{\"y\":{\"q\":1,\"p\":[3,2,1]},\"x\":\"s\"},"
        + "\"a\":\"first\"}").getBytes(StandardCharsets.UTF_8);
    assertThat(Fingerprints.ofJson(doc, Set.of()))
        .isEqualTo("v2:daca8ae5bda6375353902d8dbedc147a9352f3f9bb30c557781ad7f2564f455e");
    assertThat(Fingerprints.ofJson(doc, Set.of("amount", "/m/y/q")))
        .isEqualTo("v2:64b468d3a158fc759c37ceb3eba3c0b81c507598b17416a43793edcf8c203eb7");
  }

  @Test
  void a_duplicate_member_name_is_not_one_json_value_even_when_the_member_is_volatile()
      throws IOException {
    for (String doc : List.of("{\"a\":1,\"a\":1}", "{\"x\":{\"b\":1,\"c\":2,\"b\":3}}",
        "[{\"k\":1},{\"k\":2,\"j\":0,\"i\":0,\"k\":2}]")) {
      assertThatThrownBy(() -> json(doc)).as(doc).isInstanceOf(IOException.class);
    }
    for (String doc : List.of("{\"ts\":1,\"a\":2,\"ts\":3}",
        "{\"a\":2,\"ts\":{\"x\":[{\"y\":1,\"y\":2}]}}")) {
      assertThatThrownBy(() -> Fingerprints.ofJson(doc.getBytes(StandardCharsets.UTF_8),
          Set.of("ts"))).as(doc).isInstanceOf(IOException.class);
    }
    assertThat(Fingerprints.ofJson("{\"a\":2,\"ts\":{\"x\":[{\"y\":1},{\"y\":2}]}}"
        .getBytes(StandardCharsets.UTF_8), Set.of("ts"))).isEqualTo(json("{\"a\":2}"));
  }

  @Test
  void array_order_types_and_values_change_the_fingerprint() throws IOException {
    assertThat(json("[1,2]")).isNotEqualTo(json("[2,1]"));
    assertThat(json("{\"a\":1}")).isNotEqualTo(json("{\"a\":\"1\"}"));
    assertThat(json("{\"a\":true}")).isNotEqualTo(json("{\"a\":\"true\"}"));
    assertThat(json("{\"a\":null}")).isNotEqualTo(json("{}"));
    assertThat(json("[[]]")).isNotEqualTo(json("[{}]"));
    assertThat(json("{\"a\":\"b\\\"\",\"c\":\"\"}")).isNotEqualTo(json("{\"a\":\"b\",\"c\":\"\\\"\"}"));
    assertThat(json("{\"ab\":\"c\"}")).isNotEqualTo(json("{\"a\":\"bc\"}"));
  }

  @Test
  void strings_are_compared_by_their_decoded_value() throws IOException {
    assertThat(json("[\"\\u0041\\u00e9\\ud83d\\ude00\"]")).isEqualTo(json("[\"Aé😀\"]"));
    assertThat(json("[\"\\ud800\"]")).isNotEqualTo(json("[\"?\"]"))
        .isNotEqualTo(json("[\"\\udc00\"]"));
  }

  @Test
  void members_are_sorted_by_utf16_code_units() throws IOException {
    assertThat(json("{\"é\":1,\"z\":2,\"A\":3,\"😀\":4,\"\uffff\":5}"))
        .isEqualTo(json("{\"A\":3,\"z\":2,\"é\":1,\"😀\":4,\"\uffff\":5}"));
  }

  @Test
  void volatile_fields_are_left_out_at_the_top_level_by_pointer_and_inside_arrays()
      throws IOException {
    assertThat(json("{\"id\":1,\"ts\":\"now\"}", "ts")).isEqualTo(json("{\"id\":1}"));
    assertThat(json("{\"n\":{\"ts\":1,\"k\":2},\"ts\":3}", "/n/ts"))
        .isEqualTo(json("{\"n\":{\"k\":2},\"ts\":3}"));
    assertThat(json("{\"items\":[{\"at\":1,\"s\":\"a\"},{\"at\":2,\"s\":\"b\"}]}", "/items/1/at"))
        .isEqualTo(json("{\"items\":[{\"at\":1,\"s\":\"a\"},{\"s\":\"b\"}]}"));
    assertThat(json("{\"a/b\":{\"c~d\":1,\"e\":2}}", "/a~1b/c~0d"))
        .isEqualTo(json("{\"a/b\":{\"e\":2}}"));
    assertThat(json("{\"n\":{\"ts\":1}}", "ts")).isEqualTo(json("{\"n\":{\"ts\":1}}"));
    assertThat(json("[{\"ts\":1}]", "/01/ts")).isEqualTo(json("[{\"ts\":1}]"));
  }

  @Test
  void json_and_bytes_fingerprints_never_collide() throws IOException {
    assertThat(json("42")).isNotEqualTo(Fingerprints.ofBytes(
        "42".getBytes(StandardCharsets.UTF_8), JSON));
    assertThat(Fingerprints.ofBytes(new byte[] {1}, "text/plain"))
        .isEqualTo(Fingerprints.ofBytes(new byte[] {1}, " TEXT/PLAIN "))
        .isNotEqualTo(Fingerprints.ofBytes(new byte[] {1}, "text/csv"));
  }

  @Test
  void malformed_json_is_refused_with_an_io_exception() {
    for (String bad : List.of("", "   ", "{\"a\":1,\"a\":2}", "{\"a\":1} {}", "{\"a\":", "[1,]",
        "{a:1}", "01", "NaN", "[1e999999999999]")) {
      assertThatThrownBy(() -> json(bad)).as(bad).isInstanceOf(IOException.class);
    }
  }

  @Test
  void a_refusal_of_malformed_json_never_quotes_the_body() {
    byte[] body = "{\"card\":\"4111-1111\", secret}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> Fingerprints.ofPayload(body, JSON, List.of()))
        .isInstanceOf(MalformedPayloadException.class)
        .hasNoCause()
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("4111").doesNotContain("secret"));
  }

  @Test
  void a_large_document_with_deep_nesting_is_fingerprinted_in_order() throws IOException {
    StringBuilder a = new StringBuilder();
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      a.append("{\"k").append(i).append("\":1,\"z\":");
      b.append("{\"z\":");
    }
    a.append("0");
    b.append("0");
    for (int i = 199; i >= 0; i--) {
      a.append('}');
      b.append(",\"k").append(i).append("\":1}");
    }
    assertThat(json(a.toString())).isEqualTo(json(b.toString()));
  }

  /** One policy for every caller: the client's two entry points and the server half. */
  @Test
  void the_payload_policy_refuses_malformed_json_and_volatile_fields_on_bytes_but_not_no_payload() {
    byte[] malformed = "{\"amount\":".getBytes(StandardCharsets.UTF_8);
    byte[] raw = "raw".getBytes(StandardCharsets.UTF_8);

    assertThatThrownBy(() -> Fingerprints.ofPayload(malformed, JSON, List.of()))
        .isInstanceOfSatisfying(MalformedPayloadException.class, e -> assertThat(e.problem())
            .isEqualTo(MalformedPayloadException.Problem.MALFORMED_JSON))
        .hasMessageContaining("not one well-formed JSON value");
    assertThatThrownBy(() -> Fingerprints.ofPayload(raw, "text/plain", List.of("sentAt")))
        .isInstanceOfSatisfying(MalformedPayloadException.class, e -> assertThat(e.problem())
            .isEqualTo(MalformedPayloadException.Problem.VOLATILE_FIELDS_WITHOUT_JSON))
        .hasMessageContaining("need a JSON body");
    assertThat(Fingerprints.ofPayload(new byte[0], JSON, List.of("sentAt")))
        .isEqualTo(Fingerprints.ofBytes(new byte[0], JSON));
    assertThat(Fingerprints.ofPayload(raw, "text/plain", List.of()))
        .isEqualTo(Fingerprints.ofBytes(raw, "text/plain"));
  }
}
