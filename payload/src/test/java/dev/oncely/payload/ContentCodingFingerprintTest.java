package dev.oncely.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.RequestBody;
import okio.Buffer;
import org.junit.jupiter.api.Test;

/**
 * A body with a {@code Content-Encoding}: in a coding the JDK decodes, fingerprinted by its decoded
 * payload under the same rules as a body sent as it is (strictly decoded, bounded by the limit);
 * in any other coding, by its codings, media type and exact bytes.
 */
class ContentCodingFingerprintTest {
  private static final String JSON = "application/json";
  private static final String BODY = "{\"order\":\"order-7\",\"amount\":1000,\"currency\":\"JPY\"}";
  private static final String REORDERED =
      "{ \"currency\":\"JPY\", \"amount\":1000.0, \"order\":\"order-7\" }";
  private static final long LIMIT = 64 * 1024;

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] gzip(byte[] bytes, int level) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out) {
      {
        def.setLevel(level);
      }
    }) {
      gzip.write(bytes);
    }
    return out.toByteArray();
  }

  private static byte[] gzip(byte[] bytes) throws IOException {
    return gzip(bytes, Deflater.DEFAULT_COMPRESSION);
  }

  private static byte[] deflate(byte[] bytes, boolean raw) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DeflaterOutputStream deflate = new DeflaterOutputStream(out,
        new Deflater(Deflater.DEFAULT_COMPRESSION, raw))) {
      deflate.write(bytes);
    }
    return out.toByteArray();
  }

  private static String coded(byte[] body, String mediaType, String coding) {
    return Fingerprints.ofPayload(body, mediaType, coding, Set.of(), LIMIT);
  }

  private static String plain(byte[] body, String mediaType) {
    return Fingerprints.ofPayload(body, mediaType, Set.of());
  }

  @Test
  void a_body_in_a_coding_the_jdk_decodes_has_the_fingerprint_of_its_decoded_payload()
      throws IOException {
    String json = plain(utf8(BODY), JSON);
    assertThat(json).isEqualTo(Fingerprints.ofJson(utf8(BODY), Set.of()))
        .isEqualTo(plain(utf8(REORDERED), JSON));

    assertThat(coded(gzip(utf8(BODY)), JSON, "gzip")).isEqualTo(json);
    assertThat(coded(gzip(utf8(REORDERED), Deflater.BEST_COMPRESSION), JSON, "gzip"))
        .as("other JSON text of the same value, at another level").isEqualTo(json);
    assertThat(coded(gzip(utf8(BODY), Deflater.NO_COMPRESSION), JSON, "GZip")).isEqualTo(json);
    assertThat(coded(gzip(utf8(BODY)), JSON, "x-gzip")).isEqualTo(json);
    assertThat(coded(deflate(utf8(BODY), false), JSON, "deflate")).as("zlib").isEqualTo(json);
    assertThat(coded(deflate(utf8(BODY), true), JSON, "deflate")).as("raw deflate")
        .isEqualTo(json);
    assertThat(coded(utf8(BODY), JSON, "identity")).isEqualTo(json);
    assertThat(coded(gzip(utf8(BODY)), JSON, " identity , gzip ")).isEqualTo(json);
  }

  @Test
  void a_chain_of_codings_is_undone_last_applied_first() throws IOException {
    byte[] deflatedThenGzipped = gzip(deflate(utf8(BODY), false));
    assertThat(coded(deflatedThenGzipped, JSON, "deflate, gzip"))
        .isEqualTo(plain(utf8(BODY), JSON));
    assertThatThrownBy(() -> coded(deflatedThenGzipped, JSON, "gzip, deflate"))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessageContaining("declared deflate but is not");
  }

  @Test
  void a_gzip_body_of_several_members_decodes_to_their_concatenation() throws IOException {
    byte[] half = utf8(BODY.substring(0, 20));
    byte[] rest = utf8(BODY.substring(20));
    byte[] members = concat(gzip(half), gzip(rest));
    assertThat(coded(members, JSON, "gzip")).isEqualTo(plain(utf8(BODY), JSON));
  }

  @Test
  void a_gzip_header_with_every_optional_field_decodes() throws IOException {
    ByteArrayOutputStream member = new ByteArrayOutputStream();
    member.write(new byte[] {0x1f, (byte) 0x8b, 8, 2 | 4 | 8 | 16, 0, 0, 0, 0, 0, 3});
    member.write(new byte[] {3, 0, 'a', 'b', 'c'});
    member.write(utf8("payment.json\0a comment\0"));
    java.util.zip.CRC32 headerCrc = new java.util.zip.CRC32();
    headerCrc.update(member.toByteArray());
    member.write(new byte[] {(byte) headerCrc.getValue(), (byte) (headerCrc.getValue() >> 8)});
    byte[] header = member.toByteArray();
    byte[] plainGzip = gzip(utf8(BODY));
    // The same deflate data and trailer after a header with every optional field.
    byte[] withFields = concat(header, Arrays.copyOfRange(plainGzip, 10, plainGzip.length));

    assertThat(coded(withFields, JSON, "gzip")).isEqualTo(plain(utf8(BODY), JSON));
    withFields[header.length - 1] ^= 1;
    assertThatThrownBy(() -> coded(withFields, JSON, "gzip"))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessageContaining("header checksum");
  }

  @Test
  void a_body_that_is_not_what_its_coding_declares_is_refused() throws IOException {
    byte[] gzip = gzip(utf8(BODY));
    byte[] badCrc = gzip.clone();
    badCrc[badCrc.length - 8] ^= 1;
    byte[] badLength = gzip.clone();
    badLength[badLength.length - 1] ^= 1;
    for (byte[] notGzip : List.of(utf8(BODY), Arrays.copyOf(gzip, gzip.length - 3),
        Arrays.copyOf(gzip, 12), concat(gzip, utf8("garbage")), concat(gzip, new byte[20]),
        badCrc, badLength, deflate(utf8(BODY), false))) {
      assertThatThrownBy(() -> coded(notGzip, JSON, "gzip"))
          .isInstanceOf(MalformedPayloadException.class)
          .hasMessageContaining("declared gzip but is not");
    }
    assertThatThrownBy(() -> coded(utf8(BODY), JSON, "deflate"))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessageContaining("declared deflate but is not");
    assertThatThrownBy(() -> coded(concat(deflate(utf8(BODY), false), new byte[] {0}), JSON,
        "deflate"))
        .isInstanceOf(MalformedPayloadException.class);
  }

  @Test
  void gzipped_json_that_is_malformed_once_decoded_is_refused_as_json() throws IOException {
    assertThatThrownBy(() -> coded(gzip(utf8("{\"amount\":")), JSON, "gzip"))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessageContaining("not one well-formed JSON value")
        .hasMessageContaining("once decoded from Content-Encoding 'gzip'");
  }

  @Test
  void a_decoded_payload_past_the_limit_is_refused_and_one_at_the_limit_is_not()
      throws IOException {
    byte[] atLimit = new byte[(int) LIMIT];
    Arrays.fill(atLimit, (byte) 'a');
    byte[] pastLimit = Arrays.copyOf(atLimit, atLimit.length + 1);
    pastLimit[atLimit.length] = 'a';

    assertThat(coded(gzip(atLimit), "text/plain", "gzip"))
        .isEqualTo(plain(atLimit, "text/plain"));
    assertThatThrownBy(() -> coded(gzip(pastLimit), "text/plain", "gzip"))
        .isInstanceOfSatisfying(PayloadTooLargeException.class, e -> {
          assertThat(e.limit()).isEqualTo(LIMIT);
          assertThat(e.size()).isGreaterThan(LIMIT);
          assertThat(e.getMessage()).contains("once decoded").contains("'gzip'");
        });
    byte[] bomb = gzip(new byte[64 * 1024 * 1024]);
    assertThat(bomb.length).isLessThan(128 * 1024);
    assertThatThrownBy(() -> coded(bomb, "application/octet-stream", "gzip"))
        .isInstanceOfSatisfying(PayloadTooLargeException.class,
            e -> assertThat(e.size()).isLessThan(LIMIT + 64 * 1024));
  }

  @Test
  void a_body_in_a_coding_the_sdk_cannot_decode_is_its_codings_media_type_and_exact_bytes()
      throws Exception {
    byte[] opaque = {(byte) 0x8b, 0x0f, (byte) 0x80, 0x7b, 0x7d, 3};
    String brotli = coded(opaque, JSON, "br");

    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    sha.update(utf8("coded\0br\0application/json\0"));
    sha.update(opaque);
    assertThat(brotli).as("pinned form").isEqualTo("v2:" + HexFormat.of().formatHex(sha.digest()));

    assertThat(coded(opaque, JSON, " BR ")).isEqualTo(brotli);
    assertThat(coded(opaque, JSON, "br, identity")).isEqualTo(brotli);
    assertThat(coded(opaque, JSON, "zstd")).isNotEqualTo(brotli);
    assertThat(coded(opaque, "application/octet-stream", "br")).isNotEqualTo(brotli);
    assertThat(coded(new byte[] {(byte) 0x8b, 0x0f, (byte) 0x80, 0x7b, 0x7d, 4}, JSON, "br"))
        .isNotEqualTo(brotli);
    assertThat(brotli).as("never the fingerprint of the same bytes sent without a coding")
        .isNotEqualTo(Fingerprints.ofBytes(opaque, JSON));
    byte[] gzip = gzip(utf8(BODY));
    assertThat(coded(gzip, JSON, "gzip, br")).as("one coding it cannot undo: opaque")
        .isEqualTo(coded(gzip, JSON, "gzip,br")).isNotEqualTo(coded(gzip, JSON, "gzip"));
  }

  @Test
  void volatile_fields_apply_to_decoded_json_and_are_refused_for_an_opaque_coding()
      throws IOException {
    byte[] first = gzip(utf8("{\"amount\":1000,\"sentAt\":\"09:00\"}"));
    byte[] later = gzip(utf8("{\"amount\":1000,\"sentAt\":\"09:05\"}"));
    assertThat(Fingerprints.ofPayload(first, JSON, "gzip", Set.of("sentAt"), LIMIT))
        .isEqualTo(Fingerprints.ofPayload(later, JSON, "gzip", Set.of("sentAt"), LIMIT));

    assertThatThrownBy(() -> Fingerprints.ofPayload(first, JSON, "br", Set.of("sentAt"), LIMIT))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessageContaining("volatileFields").hasMessageContaining("'br'");
  }

  @Test
  void a_gzipped_form_is_fingerprinted_by_its_parts_whatever_its_boundary() throws IOException {
    MultipartBody b1 = form("b1");
    MultipartBody b2 = form("b2");
    assertThat(coded(gzip(bytesOf(b1)), b1.contentType().toString(), "gzip"))
        .isEqualTo(coded(gzip(bytesOf(b2)), b2.contentType().toString(), "gzip"))
        .isEqualTo(plain(bytesOf(b1), b1.contentType().toString()));
  }

  @Test
  void an_empty_body_is_no_payload_whatever_its_coding() throws IOException {
    String none = plain(new byte[0], JSON);
    assertThat(coded(new byte[0], JSON, "gzip")).isEqualTo(none);
    assertThat(coded(new byte[0], JSON, "br")).isEqualTo(none);
    assertThat(coded(gzip(new byte[0]), JSON, "gzip")).as("gzip of nothing").isEqualTo(none);
  }

  @Test
  void codings_are_the_same_whatever_their_case_spacing_or_identity_members() {
    assertThat(Fingerprints.sameCodings("gzip", " GZIP ")).isTrue();
    assertThat(Fingerprints.sameCodings(null, "identity")).isTrue();
    assertThat(Fingerprints.sameCodings("gzip, identity", "gzip")).isTrue();
    assertThat(Fingerprints.sameCodings("gzip", null)).isFalse();
    assertThat(Fingerprints.sameCodings("gzip, br", "br, gzip")).isFalse();
    assertThat(Fingerprints.sameCodings("gzip", "x-gzip")).isFalse();
  }

  private static MultipartBody form(String boundary) {
    return new MultipartBody.Builder(boundary).setType(MultipartBody.FORM)
        .addFormDataPart("amount", "1000")
        .addFormDataPart("invoice", "invoice-7.pdf",
            RequestBody.create(new byte[] {1, 2, 3}, MediaType.get("application/pdf")))
        .build();
  }

  private static byte[] bytesOf(RequestBody body) throws IOException {
    Buffer buffer = new Buffer();
    body.writeTo(buffer);
    return buffer.readByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }
}
