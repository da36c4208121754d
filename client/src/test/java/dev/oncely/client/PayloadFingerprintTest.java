package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.payload.Fingerprints;
import dev.oncely.payload.MalformedPayloadException;
import dev.oncely.payload.PayloadTooLargeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The client refuses a payload with its own exceptions and messages, whatever the shared rule
 * calls the refusal; the rule's exception rides along as the cause.
 */
class PayloadFingerprintTest {
  private static final String JSON = "application/json";
  private static final long LIMIT = 1024;

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] gzip(byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      gzip.write(bytes);
    }
    return out.toByteArray();
  }

  @Test
  void an_accepted_payload_has_the_shared_rules_fingerprint() throws IOException {
    byte[] body = utf8("{\"amount\":1000,\"sentAt\":\"09:00\"}");
    assertThat(IntentSpec.fingerprintOf(gzip(body), JSON, "gzip", Set.of("sentAt"), LIMIT))
        .isEqualTo(Fingerprints.ofPayload(body, JSON, Set.of("sentAt")));
  }

  @Test
  void malformed_json_is_an_invalid_body() throws IOException {
    assertThatThrownBy(() -> IntentSpec.fingerprintOf(utf8("{\"amount\":"), JSON, null,
        Set.of(), LIMIT))
        .isInstanceOfSatisfying(InvalidIntentException.class, e -> {
          assertThat(e.setting()).isEqualTo("body");
          assertThat(e).isNotInstanceOf(BodyTooLargeException.class)
              .hasCauseInstanceOf(MalformedPayloadException.class);
        })
        .hasMessage("body: is declared JSON ('application/json') but is not one well-formed JSON"
            + " value");
    assertThatThrownBy(() -> IntentSpec.fingerprintOf(gzip(utf8("{\"amount\":")), JSON,
        "gzip", Set.of(), LIMIT))
        .isInstanceOf(InvalidIntentException.class)
        .hasMessage("body: is declared JSON ('application/json') but is not one well-formed JSON"
            + " value once decoded from Content-Encoding 'gzip'");
  }

  @Test
  void a_body_not_in_its_declared_coding_is_an_invalid_body_neither_stored_nor_sent() {
    assertThatThrownBy(() -> IntentSpec.fingerprintOf(utf8("{\"amount\":1000,\"c\":\"JPY\"}"),
        JSON, "gzip", Set.of(), LIMIT))
        .isInstanceOfSatisfying(InvalidIntentException.class,
            e -> assertThat(e.setting()).isEqualTo("body"))
        .hasMessage("body: is declared gzip but is not (no gzip magic number; Content-Encoding"
            + " 'gzip'): a server could not read it, so it is neither stored nor sent; send the"
            + " bytes the header declares")
        .hasCauseInstanceOf(MalformedPayloadException.class);
  }

  @Test
  void volatile_fields_for_a_body_that_is_not_readable_json_are_an_invalid_setting() {
    assertThatThrownBy(() -> IntentSpec.fingerprintOf(utf8("raw"), "text/plain", null,
        Set.of("sentAt"), LIMIT))
        .isInstanceOfSatisfying(InvalidIntentException.class,
            e -> assertThat(e.setting()).isEqualTo("volatileFields"))
        .hasMessage("volatileFields: need a JSON body; the body's media type is 'text/plain'");
    assertThatThrownBy(() -> IntentSpec.fingerprintOf(utf8("raw"), null, null,
        Set.of("sentAt"), LIMIT))
        .hasMessage("volatileFields: need a JSON body; the body's media type is none");
    assertThatThrownBy(() -> IntentSpec.fingerprintOf(new byte[] {1, 2, 3}, JSON, "br",
        Set.of("sentAt"), LIMIT))
        .isInstanceOfSatisfying(InvalidIntentException.class,
            e -> assertThat(e.setting()).isEqualTo("volatileFields"))
        .hasMessage("volatileFields: need a JSON body the SDK can read; the body's"
            + " Content-Encoding is 'br', which it does not decode (it decodes gzip, x-gzip,"
            + " deflate and identity)");
  }

  @Test
  void a_payload_decoded_past_the_limit_is_a_body_too_large() throws IOException {
    byte[] bomb = gzip(new byte[(int) LIMIT * 64]);
    assertThatThrownBy(() -> IntentSpec.fingerprintOf(bomb, "application/octet-stream",
        "gzip", Set.of(), LIMIT))
        .isInstanceOfSatisfying(BodyTooLargeException.class, e -> {
          assertThat(e.setting()).isEqualTo("body");
          assertThat(e.limit()).isEqualTo(LIMIT);
          assertThat(e.size()).isGreaterThan(LIMIT);
          assertThat(e).hasMessage("body: declared Content-Encoding 'gzip' and passed the limit of"
              + " 1024 bytes once decoded (decoding stopped at " + e.size() + " bytes; the limit"
              + " bounds the decoded payload) (raise maxBodyBytes, or send a body this large"
              + " outside an intent)");
          assertThat(e.getCause()).isInstanceOfSatisfying(PayloadTooLargeException.class,
              cause -> assertThat(cause.size()).isEqualTo(e.size()));
        });
  }
}
