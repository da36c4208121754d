package dev.oncely.client.spi.sql;

import dev.oncely.client.DueTime;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.UnfinishedEntry;
import dev.oncely.client.spi.Sealing;
import dev.oncely.client.spi.StoreEncryption;
import java.nio.Buffer;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import org.jspecify.annotations.Nullable;

/**
 * The {@code stub} column of the {@linkplain IntentTable SQL schema} (and the unfinished-index
 * value of the MapDB engine): just enough of an unfinished record to list it for resume ({@link
 * UnfinishedEntry}: id, creation and next-attempt time), small and quick to decode, so listing
 * 100,000 unfinished records reads no record. Thread-safe.
 *
 * <p>Layout (big-endian): {@code version u8 (1) | flags u8 (bit 0: key sealed) | createdAt i64 s,
 * i32 ns | next attempt present u8 [i64 s, i32 ns] | scope u16+UTF-8 | operation u16+UTF-8 |
 * key part u16 length + (UTF-8 key, or the key {@link Sealing sealed} with everything before it
 * as associated data) | crc32 u32}. The key is sealed whenever the store encrypts records, like the
 * record codec does.
 */
public final class UnfinishedStub {
  private static final int VERSION = 1;
  private static final int FLAG_SEALED = 1;
  private static final String WHAT = "unfinished index value";

  private final Sealing sealing;

  /** Stubs whose key is sealed with {@code encryption}, or plain when it is null. */
  public UnfinishedStub(@Nullable StoreEncryption encryption) {
    this.sealing = new Sealing(encryption);
  }

  /** The stub bytes of {@code r}. */
  public byte[] encode(IntentRecord r) {
    byte[] scope = utf8(r.id().scope());
    byte[] operation = utf8(r.id().operation());
    byte[] key = utf8(r.id().key());
    Instant next = r.nextAttemptAt();
    int head = 2 + 12 + 1 + (next == null ? 0 : 12) + 2 + scope.length + 2 + operation.length;
    ByteBuffer header = ByteBuffer.allocate(head)
        .put((byte) VERSION).put((byte) (sealing.seals() ? FLAG_SEALED : 0))
        .putLong(r.createdAt().getEpochSecond()).putInt(r.createdAt().getNano())
        .put((byte) (next == null ? 0 : 1));
    if (next != null) {
      header.putLong(next.getEpochSecond()).putInt(next.getNano());
    }
    header.putShort((short) scope.length).put(scope)
        .putShort((short) operation.length).put(operation);
    byte[] keyPart = sealing.seal(key, header.array());
    ByteBuffer out = ByteBuffer.allocate(head + 2 + keyPart.length + 4)
        .put(header.array()).putShort((short) keyPart.length).put(keyPart);
    CRC32 crc = new CRC32();
    crc.update(out.array(), 0, out.position());
    return out.putInt((int) crc.getValue()).array();
  }

  /**
   * Decodes a stub; {@code where} is asked for its name only when it is refused, so a listing of
   * many stubs builds no message per stub.
   *
   * @throws StoreCorruptedException if it fails its checksum or is malformed
   * @throws StoreEncryptionException if it was sealed with another key, or the store is plain
   */
  public UnfinishedEntry decode(byte[] bytes, Supplier<String> where) {
    ByteBuffer in = checked(bytes, where);
    try {
      boolean sealed = (in.get() & FLAG_SEALED) != 0;
      Instant created = Instant.ofEpochSecond(in.getLong(), in.getInt());
      Instant next = in.get() == 0 ? null : Instant.ofEpochSecond(in.getLong(), in.getInt());
      String scope = string(in, in.getShort() & 0xffff);
      String operation = string(in, in.getShort() & 0xffff);
      int headEnd = in.position();
      byte[] keyPart = new byte[in.getShort() & 0xffff];
      in.get(keyPart);
      if (in.remaining() != 4) {
        throw new StoreCorruptedException(where.get() + ": unfinished index value has "
            + (in.remaining() - 4) + " stray bytes");
      }
      String key;
      if (sealed) {
        byte[] aad = new byte[headEnd];
        System.arraycopy(bytes, 0, aad, 0, headEnd);
        key = new String(sealing.open(keyPart, aad, where.get(), WHAT), StandardCharsets.UTF_8);
      } else {
        sealing.checkPlain(where.get(), WHAT);
        key = new String(keyPart, StandardCharsets.UTF_8);
      }
      return new UnfinishedEntry(IntentId.of(scope, operation, key), created, next);
    } catch (BufferUnderflowException | DateTimeException | ArithmeticException
        | IllegalArgumentException e) {
      throw new StoreCorruptedException(where.get() + ": malformed unfinished index value: " + e,
          e);
    }
  }

  /**
   * The earliest time the record a stub of {@code r} summarizes can be {@linkplain DueTime due}:
   * its next attempt time, else its creation time. Never after {@link DueTime#of} as long as the
   * record was not updated before it was created (no record the SDK writes is): a stub holds
   * neither the state nor the last update that decide the rest.
   */
  public static Instant dueBound(IntentRecord r) {
    return r.nextAttemptAt() != null ? r.nextAttemptAt() : r.createdAt();
  }

  /**
   * {@link #dueBound(IntentRecord)} of the record a stub summarizes, read from the stub alone: its
   * checksum and version are checked, its id is not decoded (nor its key unsealed).
   *
   * @throws StoreCorruptedException if it fails its checksum or is malformed
   */
  public static Instant dueBound(byte[] bytes, Supplier<String> where) {
    ByteBuffer in = checked(bytes, where);
    try {
      in.get();
      Instant created = Instant.ofEpochSecond(in.getLong(), in.getInt());
      return in.get() == 0 ? created : Instant.ofEpochSecond(in.getLong(), in.getInt());
    } catch (BufferUnderflowException | DateTimeException | ArithmeticException e) {
      throw new StoreCorruptedException(where.get() + ": malformed unfinished index value: " + e,
          e);
    }
  }

  /**
   * {@code bytes} read from the start, once their checksum and version are checked; positioned
   * after the version.
   */
  private static ByteBuffer checked(byte[] bytes, Supplier<String> where) {
    if (bytes.length < 4) {
      throw new StoreCorruptedException(where.get() + ": unfinished index value of "
          + bytes.length + " bytes");
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (in.getInt(bytes.length - 4) != (int) crc.getValue()) {
      throw new StoreCorruptedException(where.get()
          + ": unfinished index value fails its checksum");
    }
    int version = in.get();
    if (version != VERSION) {
      throw new StoreCorruptedException(where.get() + ": unfinished index value version "
          + version);
    }
    return in;
  }

  /** Decodes {@code length} bytes of {@code in}'s array in place (no intermediate copy). */
  private static String string(ByteBuffer in, int length) {
    if (length > in.remaining()) {
      throw new BufferUnderflowException();
    }
    String s = new String(in.array(), in.arrayOffset() + in.position(), length,
        StandardCharsets.UTF_8);
    // Through Buffer: Android's ByteBuffer has no position(int) returning ByteBuffer.
    ((Buffer) in).position(in.position() + length);
    return s;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
