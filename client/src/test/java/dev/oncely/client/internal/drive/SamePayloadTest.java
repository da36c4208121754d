package dev.oncely.client.internal.drive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.payload.Fingerprints;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.RequestBody;
import okio.Buffer;
import org.junit.jupiter.api.Test;

/**
 * {@link Admission#samePayload}: a stored record holds a new intent's payload when the bytes are
 * the same or the fingerprints are, and a multipart record stored by an earlier release is
 * compared by the fingerprint its stored bytes have today.
 */
class SamePayloadTest {
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
    return Fingerprints.ofPayload(bytesOf(body), body.contentType().toString(), Set.of());
  }

  /**
   * The fingerprint an earlier release stored for a multipart body: its media type (boundary
   * included) and its exact bytes, the rule's form for bytes it does not read.
   */
  private static String earlierReleaseFingerprint(byte[] body, String mediaType)
      throws NoSuchAlgorithmException {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    sha.update("bytes\0".getBytes(StandardCharsets.US_ASCII));
    sha.update(mediaType.trim().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
    sha.update((byte) 0);
    sha.update(body);
    return Fingerprints.PREFIX + HexFormat.of().formatHex(sha.digest());
  }

  @Test
  void a_form_recorded_with_its_boundary_hashed_is_compared_by_its_stored_parts()
      throws Exception {
    MultipartBody stored = invoice("b1");
    byte[] storedBytes = bytesOf(stored);
    String storedType = stored.contentType().toString();
    // An earlier release hashed a multipart body as media type (boundary included) and bytes.
    IntentRecord earlier = record(storedBytes, storedType,
        earlierReleaseFingerprint(storedBytes, storedType));

    MultipartBody again = invoice("b2");
    assertThat(Admission.samePayload(earlier, record(bytesOf(again),
        again.contentType().toString(), fingerprint(again)))).isTrue();
    MultipartBody changed = form("b2").addFormDataPart("amount", "999").build();
    assertThat(Admission.samePayload(earlier, record(bytesOf(changed),
        changed.contentType().toString(), fingerprint(changed)))).isFalse();
  }

  private static byte[] bytesOf(RequestBody body) throws IOException {
    Buffer bytes = new Buffer();
    body.writeTo(bytes);
    return bytes.readByteArray();
  }

  private static IntentRecord record(byte[] body, String mediaType, String fingerprint) {
    Instant now = Instant.parse("2026-11-30T08:00:00Z");
    return IntentRecord.builder().id(IntentId.of("tenant-42", "upload-invoice", "k-1"))
        .method("POST").url("https://api.example.test/invoices").body(body, mediaType)
        .fingerprint(fingerprint).state(IntentState.PENDING).createdAt(now).updatedAt(now)
        .expiresAt(now.plusSeconds(3600)).build();
  }
}
