package dev.oncely.client.spi;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * Hostile variants of {@link RecordCodec} bytes for fuzz tests: bit flips, truncations, inserted
 * and deleted bytes, hostile lengths, counts, times and state codes, most with the CRC recomputed
 * so the damage reaches the parser instead of stopping at the checksum. Deterministic per seed.
 */
public final class RecordMutations {
  /** The kinds of damage, one per case. */
  public enum Kind {
    BIT_FLIPS, BIT_FLIPS_CRC, TRUNCATION_CRC, INSERTION_CRC, DELETION_CRC, HOSTILE_INT_CRC,
    HOSTILE_TIME_CRC, STATE_CODE_CRC, FLAGS_CRC, RANDOM_BYTES
  }

  private static final int[] HOSTILE_INTS = {
      -1, Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE - 8, 0, 1, 0x7fff, 0xffff,
      1 << 24, 1 << 30};
  private static final long[] HOSTILE_SECONDS = {
      Long.MAX_VALUE, Long.MIN_VALUE, 31556889864403200L, -31557014167219201L, -1, 0};

  private RecordMutations() {}

  /** Returns {@code bytes} with the trailing CRC32 recomputed over the rest. */
  public static byte[] withCrc(byte[] bytes) {
    if (bytes.length < 4) {
      return bytes;
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
    return bytes;
  }

  /** The offset of {@code createdAt} in an encoded record (after the public strings). */
  public static int createdAtOffset(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    in.position(4);
    skipString(in); // scope
    skipString(in); // operation
    skipOptional(in); // business id
    skipString(in); // method
    skipString(in); // url
    skipOptional(in); // media type
    skipOptional(in); // poll url
    skipOptional(in); // reason
    return in.position() + 1 + 4 + 8 + 1;
  }

  /** The offset of the state code in an encoded record. */
  public static int stateOffset(byte[] bytes) {
    return createdAtOffset(bytes) - 14;
  }

  /** A mutated copy of {@code bytes} of the given kind. */
  public static byte[] mutate(byte[] original, Kind kind, SplittableRandom random) {
    byte[] bytes = original.clone();
    switch (kind) {
      case BIT_FLIPS, BIT_FLIPS_CRC -> {
        int flips = 1 + random.nextInt(3);
        for (int i = 0; i < flips; i++) {
          bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
        }
        return kind == Kind.BIT_FLIPS_CRC ? withCrc(bytes) : bytes;
      }
      case TRUNCATION_CRC -> {
        return withCrc(Arrays.copyOf(bytes, random.nextInt(bytes.length)));
      }
      case INSERTION_CRC -> {
        int at = 4 + random.nextInt(bytes.length - 4);
        byte[] extra = new byte[1 + random.nextInt(8)];
        random.nextBytes(extra);
        byte[] out = new byte[bytes.length + extra.length];
        System.arraycopy(bytes, 0, out, 0, at);
        System.arraycopy(extra, 0, out, at, extra.length);
        System.arraycopy(bytes, at, out, at + extra.length, bytes.length - at);
        return withCrc(out);
      }
      case DELETION_CRC -> {
        int at = 4 + random.nextInt(bytes.length - 8);
        int n = 1 + random.nextInt(Math.min(8, bytes.length - 4 - at));
        byte[] out = new byte[bytes.length - n];
        System.arraycopy(bytes, 0, out, 0, at);
        System.arraycopy(bytes, at + n, out, at, bytes.length - at - n);
        return withCrc(out);
      }
      case HOSTILE_INT_CRC -> {
        int at = 4 + random.nextInt(bytes.length - 8);
        int value = random.nextInt(4) == 0 ? random.nextInt()
            : HOSTILE_INTS[random.nextInt(HOSTILE_INTS.length)];
        ByteBuffer.wrap(bytes).putInt(at, value);
        return withCrc(bytes);
      }
      case HOSTILE_TIME_CRC -> {
        int at = createdAtOffset(bytes) + 12 * random.nextInt(3);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (random.nextBoolean()) {
          buffer.putLong(at, HOSTILE_SECONDS[random.nextInt(HOSTILE_SECONDS.length)]);
        }
        buffer.putInt(at + 8, random.nextBoolean() ? random.nextInt() : 999_999_999);
        return withCrc(bytes);
      }
      case STATE_CODE_CRC -> {
        bytes[stateOffset(bytes)] = (byte) random.nextInt(256);
        return withCrc(bytes);
      }
      case FLAGS_CRC -> {
        bytes[2 + random.nextInt(2)] = (byte) random.nextInt(256);
        return withCrc(bytes);
      }
      case RANDOM_BYTES -> {
        byte[] out = new byte[random.nextInt(64)];
        random.nextBytes(out);
        if (out.length > 2 && random.nextBoolean()) {
          out[0] = 'O';
          out[1] = 'R';
          out[2] = 2;
        }
        return withCrc(out);
      }
      default -> throw new AssertionError(kind);
    }
  }

  private static void skipString(ByteBuffer in) {
    int n = in.getInt();
    in.position(in.position() + n);
  }

  private static void skipOptional(ByteBuffer in) {
    if (in.get() != 0) {
      skipString(in);
    }
  }
}
