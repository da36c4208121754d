package dev.oncely.android.internal;

import dev.oncely.client.IntentState;
import dev.oncely.client.spi.IntentId;
import dev.oncely.client.spi.IntentRecord;
import dev.oncely.client.spi.StoredResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Turns an {@link IntentRecord} into compact bytes and back. Every field is written, in a fixed
 * order, after a one-byte format version; strings are length-prefixed UTF-8 (length -1 for null),
 * instants are epoch seconds plus nanos, and the state is written by name so reordering the enum
 * never changes a stored state. Stateless and thread-safe.
 *
 * <p>Layout, format 1: {@code version:u8, scope, operation, key, businessId?, method, url,
 * headers, body, mediaType?, fingerprint, state, attempts:i32, nextAttemptAt?, pollUrl?,
 * lastResponse?, replayed:bool, reason?, createdAt, updatedAt, expiresAt, revision:i64}.
 */
public final class RecordCodec {
  /** The format this class writes and the only one it reads. */
  public static final int FORMAT = 1;

  private RecordCodec() {}

  /** Returns the bytes of {@code record}. */
  public static byte[] encode(IntentRecord record) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + record.bodyLength());
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(FORMAT);
      writeString(out, record.id().scope());
      writeString(out, record.id().operation());
      writeString(out, record.id().key());
      writeString(out, record.businessId());
      writeString(out, record.method());
      writeString(out, record.url());
      writeHeaders(out, record.headers());
      writeBytes(out, record.body());
      writeString(out, record.mediaType());
      writeString(out, record.fingerprint());
      writeString(out, record.state().name());
      out.writeInt(record.attempts());
      writeInstant(out, record.nextAttemptAt());
      writeString(out, record.pollUrl());
      StoredResponse response = record.lastResponse();
      out.writeBoolean(response != null);
      if (response != null) {
        out.writeShort(response.status());
        writeHeaders(out, response.headers());
        writeBytes(out, response.body());
      }
      out.writeBoolean(record.replayed());
      writeString(out, record.reason());
      writeInstant(out, record.createdAt());
      writeInstant(out, record.updatedAt());
      writeInstant(out, record.expiresAt());
      out.writeLong(record.revision());
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return bytes.toByteArray();
  }

  /**
   * Returns the record in {@code bytes}.
   *
   * @throws IllegalArgumentException if the bytes are truncated, carry trailing data, an unknown
   *     format or state, or a field the record builder refuses; the message names what failed
   */
  public static IntentRecord decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int format = in.readUnsignedByte();
      if (format != FORMAT) {
        throw new IllegalArgumentException(
            "record format " + format + " is unknown; this version reads format " + FORMAT);
      }
      IntentRecord.Builder b = IntentRecord.builder()
          .id(IntentId.of(readString(in), readString(in), readString(in)))
          .businessId(readString(in))
          .method(readString(in))
          .url(readString(in))
          .headers(readHeaders(in));
      byte[] body = readBytes(in);
      b.body(body, readString(in))
          .fingerprint(readString(in))
          .state(IntentState.valueOf(readString(in)))
          .attempts(in.readInt())
          .nextAttemptAt(readInstant(in))
          .pollUrl(readString(in));
      if (in.readBoolean()) {
        int status = in.readShort();
        Map<String, List<String>> headers = readHeaders(in);
        b.lastResponse(StoredResponse.of(status, headers, readBytes(in)));
      }
      b.replayed(in.readBoolean())
          .reason(readString(in))
          .createdAt(readInstant(in))
          .updatedAt(readInstant(in))
          .expiresAt(readInstant(in))
          .revision(in.readLong());
      if (in.available() > 0) {
        throw new IllegalArgumentException(in.available() + " bytes follow the record");
      }
      return b.build();
    } catch (IOException e) {
      throw new IllegalArgumentException("record bytes end early (" + bytes.length + " bytes)", e);
    } catch (NullPointerException e) {
      throw new IllegalArgumentException("record lacks a required field: " + e.getMessage(), e);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("record holds an impossible instant", e);
    }
  }

  /** CRC-32 of {@code bytes}, stored beside them and compared on every read. */
  public static long checksum(byte[] bytes) {
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length);
    return crc.getValue();
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    if (s == null) {
      out.writeInt(-1);
      return;
    }
    writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
  }

  private static String readString(DataInputStream in) throws IOException {
    int length = in.readInt();
    return length == -1 ? null : new String(readExactly(in, length), StandardCharsets.UTF_8);
  }

  private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    return readExactly(in, in.readInt());
  }

  private static byte[] readExactly(DataInputStream in, int length) throws IOException {
    if (length < 0 || length > in.available()) {
      throw new IllegalArgumentException(
          "field length " + length + " exceeds the " + in.available() + " bytes left");
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }

  private static void writeHeaders(DataOutputStream out, Map<String, List<String>> headers)
      throws IOException {
    out.writeInt(headers.size());
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      writeString(out, e.getKey());
      out.writeInt(e.getValue().size());
      for (String value : e.getValue()) {
        writeString(out, value);
      }
    }
  }

  private static Map<String, List<String>> readHeaders(DataInputStream in) throws IOException {
    int count = in.readInt();
    if (count < 0 || count > in.available()) {
      throw new IllegalArgumentException("header count " + count + " is impossible");
    }
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      String name = readString(in);
      int values = in.readInt();
      if (values < 0 || values > in.available()) {
        throw new IllegalArgumentException("value count " + values + " is impossible");
      }
      List<String> list = new ArrayList<>(values);
      for (int v = 0; v < values; v++) {
        list.add(readString(in));
      }
      headers.put(name, list);
    }
    return headers;
  }

  private static void writeInstant(DataOutputStream out, Instant instant) throws IOException {
    out.writeBoolean(instant != null);
    if (instant != null) {
      out.writeLong(instant.getEpochSecond());
      out.writeInt(instant.getNano());
    }
  }

  private static Instant readInstant(DataInputStream in) throws IOException {
    return in.readBoolean() ? Instant.ofEpochSecond(in.readLong(), in.readInt()) : null;
  }
}
