package dev.oncely.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.RequestBody;
import okio.Buffer;
import org.junit.jupiter.api.Test;

/** A multipart body is fingerprinted by its parts, in order, never by its boundary. */
class MultipartFingerprintTest {
  private static final MediaType PDF = MediaType.get("application/pdf");

  private static MultipartBody.Builder form(String boundary) {
    return new MultipartBody.Builder(boundary).setType(MultipartBody.FORM);
  }

  private static MultipartBody invoice(String boundary) {
    return form(boundary)
        .addFormDataPart("amount", "1000")
        .addFormDataPart("invoice", "invoice-7.pdf", RequestBody.create(new byte[] {1, 2, 3}, PDF))
        .build();
  }

  private static String fingerprint(RequestBody body) throws IOException {
    return fingerprint(bytesOf(body), body.contentType().toString());
  }

  private static String fingerprint(byte[] body, String mediaType) {
    return Fingerprints.ofPayload(body, mediaType, Set.of());
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void the_same_parts_under_another_boundary_are_the_same_payload() throws IOException {
    assertThat(fingerprint(invoice("b1"))).isEqualTo(fingerprint(invoice("b2")))
        .isEqualTo(fingerprint(new MultipartBody.Builder().setType(MultipartBody.FORM)
            .addFormDataPart("amount", "1000")
            .addFormDataPart("invoice", "invoice-7.pdf",
                RequestBody.create(new byte[] {1, 2, 3}, PDF))
            .build()));
  }

  @Test
  void the_multipart_form_is_pinned() {
    // A persisted fingerprint must never change with the implementation.
    byte[] body = ascii("preamble\r\n--b1\r\nContent-Disposition: form-data; name=\"amount\"\r\n"
        + "\r\n1000\r\n--b1\r\n\r\nno headers\r\n--b1--\r\nepilogue");
    assertThat(fingerprint(body, "multipart/form-data; boundary=b1")).isEqualTo(
        "v2:fbe0d565f2e6c34c362974454e41de8634733fc800d66f299885800bd355467d");
  }

  @Test
  void part_order_a_part_header_and_part_bytes_each_change_the_payload() throws IOException {
    String original = fingerprint(invoice("b1"));
    MultipartBody reordered = form("b2")
        .addFormDataPart("invoice", "invoice-7.pdf", RequestBody.create(new byte[] {1, 2, 3}, PDF))
        .addFormDataPart("amount", "1000")
        .build();
    MultipartBody renamedFile = form("b2")
        .addFormDataPart("amount", "1000")
        .addFormDataPart("invoice", "invoice-8.pdf", RequestBody.create(new byte[] {1, 2, 3}, PDF))
        .build();
    MultipartBody otherBytes = form("b2")
        .addFormDataPart("amount", "1000")
        .addFormDataPart("invoice", "invoice-7.pdf", RequestBody.create(new byte[] {1, 2, 4}, PDF))
        .build();
    MultipartBody oneMorePart = form("b2")
        .addFormDataPart("amount", "1000")
        .addFormDataPart("invoice", "invoice-7.pdf", RequestBody.create(new byte[] {1, 2, 3}, PDF))
        .addFormDataPart("note", "")
        .build();
    for (MultipartBody changed : List.of(reordered, renamedFile, otherBytes, oneMorePart)) {
      assertThat(fingerprint(changed)).isNotEqualTo(original);
    }
  }

  @Test
  void the_multipart_subtype_and_its_other_parameters_still_count() throws IOException {
    MultipartBody mixed = new MultipartBody.Builder("b2").setType(MultipartBody.MIXED)
        .addFormDataPart("amount", "1000")
        .addFormDataPart("invoice", "invoice-7.pdf", RequestBody.create(new byte[] {1, 2, 3}, PDF))
        .build();
    assertThat(fingerprint(mixed)).isNotEqualTo(fingerprint(invoice("b1")));

    byte[] body = ascii("--b1\r\nX-A: 1\r\n\r\nv\r\n--b1--\r\n");
    byte[] moved = ascii("--zz\r\nX-A: 1\r\n\r\nv\r\n--zz--\r\n");
    assertThat(fingerprint(body, "multipart/related; type=\"text/xml\"; boundary=b1"))
        .isEqualTo(fingerprint(moved, "Multipart/Related;boundary=\"zz\";TYPE=text/xml"))
        .isNotEqualTo(fingerprint(moved, "multipart/related; boundary=zz; type=text/html"));
  }

  @Test
  void preamble_epilogue_and_transport_padding_are_framing() {
    String plain = fingerprint(ascii("--b1\r\nX-A: 1\r\n\r\nvalue\r\n--b1--"), "multipart/mixed;"
        + " boundary=b1");
    assertThat(fingerprint(ascii("This is the preamble.\r\n--b2 \t\r\nX-A: 1\r\n\r\nvalue\r\n"
        + "--b2-- \r\nand an epilogue\r\n"), "multipart/mixed; boundary=b2")).isEqualTo(plain);
  }

  @Test
  void content_that_merely_resembles_a_delimiter_stays_content() {
    String body = "--b1\r\n\r\nline one\r\n--b1x is not a delimiter\r\n--b1--\r\n";
    List<MultipartParts.Part> parts = MultipartParts.parse(ascii(body), "b1");
    assertThat(parts).hasSize(1);
    MultipartParts.Part part = parts.get(0);
    assertThat(body.substring(part.contentFrom(), part.contentTo()))
        .isEqualTo("line one\r\n--b1x is not a delimiter");
    assertThat(part.headersFrom()).isEqualTo(part.headersTo());
  }

  @Test
  void a_part_is_its_headers_and_its_bytes_whatever_the_lengths() {
    // Moving a byte between a part's headers and its content, or between two parts, is another
    // payload although the concatenated bytes are the same.
    assertThat(fingerprint(ascii("--b\r\nX-A: 1\r\n\r\nvw\r\n--b--"), "multipart/mixed; boundary=b"))
        .isNotEqualTo(fingerprint(ascii("--b\r\nX-A: 1v\r\n\r\nw\r\n--b--"),
            "multipart/mixed; boundary=b"));
    assertThat(fingerprint(ascii("--b\r\n\r\nv\r\n--b\r\n\r\nw\r\n--b--"),
        "multipart/mixed; boundary=b"))
        .isNotEqualTo(fingerprint(ascii("--b\r\n\r\n\r\n--b\r\n\r\nvw\r\n--b--"),
            "multipart/mixed; boundary=b"));
  }

  @Test
  void malformed_framing_falls_back_to_the_exact_bytes_and_media_type() throws IOException {
    byte[] good = bytesOf(invoice("b1"));
    String type = "multipart/form-data; boundary=b1";
    String noClose = "--b1\r\nX-A: 1\r\n\r\nvalue\r\n";
    String headersNeverEnd = "--b1\r\nX-A: 1\r\n--b1--\r\n";
    String noPart = "--b1--\r\n";
    String noDelimiter = "just bytes";
    for (String malformed : List.of(noClose, headersNeverEnd, noPart, noDelimiter)) {
      assertThat(MultipartParts.parse(ascii(malformed), "b1")).as(malformed).isNull();
      assertThat(fingerprint(ascii(malformed), type)).as(malformed)
          .isEqualTo(Fingerprints.ofBytes(ascii(malformed), type));
    }
    String otherBoundary = "multipart/form-data; boundary=b2";
    assertThat(fingerprint(good, otherBoundary))
        .isEqualTo(Fingerprints.ofBytes(good, otherBoundary));
    for (String noFraming : List.of("multipart/form-data", "multipart/form-data; boundary=",
        "multipart/form-data; boundary=b1; boundary=b2", "multipart/form-data; boundary=\"b1",
        "text/plain; boundary=b1")) {
      assertThat(Fingerprints.isMultipart(noFraming)).as(noFraming).isFalse();
      assertThat(fingerprint(good, noFraming)).as(noFraming)
          .isEqualTo(Fingerprints.ofBytes(good, noFraming));
    }
  }

  @Test
  void volatile_fields_are_refused_for_a_multipart_body() throws IOException {
    byte[] body = bytesOf(invoice("b1"));
    assertThatThrownBy(() -> Fingerprints.ofPayload(body,
        "multipart/form-data; boundary=b1", List.of("amount")))
        .isInstanceOf(MalformedPayloadException.class);
  }

  @Test
  void a_part_without_content_and_a_part_with_headers_only_are_read() {
    List<MultipartParts.Part> parts = MultipartParts.parse(
        ascii("--b\r\nX-A: 1\r\n\r\n--b\r\n\r\n--b--"), "b");
    assertThat(parts).containsExactly(new MultipartParts.Part(5, 11, 13, 13),
        new MultipartParts.Part(20, 20, 20, 20));
  }

  private static byte[] bytesOf(RequestBody body) throws IOException {
    Buffer bytes = new Buffer();
    body.writeTo(bytes);
    return bytes.readByteArray();
  }
}
