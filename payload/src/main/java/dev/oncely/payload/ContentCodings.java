package dev.oncely.payload;

import dev.oncely.payload.MalformedPayloadException.Problem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.jspecify.annotations.Nullable;

/**
 * The content codings of a request body ({@code Content-Encoding}, RFC 9110 section 8.4), as
 * {@link Fingerprints} reads them: the list in the order the codings were applied, and the
 * decoding of the ones the JDK decodes ({@code gzip}, {@code x-gzip}, {@code deflate}; {@code
 * identity} is no coding). Decoding is strict and bounded: a body must be exactly what its header
 * declares (a whole gzip member, or several, and nothing after; a whole zlib or raw deflate
 * stream), and no step may produce more than the caller's limit.
 */
final class ContentCodings {
  /** The codings this class decodes; any other makes a body opaque to the fingerprint. */
  static final Set<String> DECODED = Set.of("gzip", "x-gzip", "deflate");

  private static final int GZIP_FHCRC = 2;
  private static final int GZIP_FEXTRA = 4;
  private static final int GZIP_FNAME = 8;
  private static final int GZIP_FCOMMENT = 16;
  private static final int GZIP_RESERVED = 0xe0;
  /** The largest byte array a JVM reliably allocates. */
  private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

  private ContentCodings() {}

  /**
   * The codings of a {@code Content-Encoding} value, in the order they were applied: lower case,
   * without {@code identity} and empty members. Empty for null or a body sent as it is.
   */
  static List<String> parse(@Nullable String contentCoding) {
    if (contentCoding == null) {
      return List.of();
    }
    List<String> codings = new ArrayList<>(1);
    for (String member : contentCoding.split(",")) {
      String coding = member.trim().toLowerCase(Locale.ROOT);
      if (!coding.isEmpty() && !coding.equals("identity")) {
        codings.add(coding);
      }
    }
    return codings;
  }

  /** Whether every coding of {@code codings} is one this class decodes. */
  static boolean decodable(List<String> codings) {
    return DECODED.containsAll(codings);
  }

  /**
   * {@code body} with {@code codings} undone, the last applied first.
   *
   * @param declared the {@code Content-Encoding} as the request declared it, for messages
   * @throws MalformedPayloadException if the body does not decode as declared
   * @throws PayloadTooLargeException if a step decodes to more than {@code limit} bytes
   */
  static byte[] decode(byte[] body, List<String> codings, long limit, String declared) {
    byte[] bytes = body;
    for (int i = codings.size() - 1; i >= 0; i--) {
      String coding = codings.get(i);
      Output out = new Output(limit, declared);
      @Nullable String failure = coding.equals("deflate") ? inflateEither(bytes, out)
          : gunzip(bytes, out);
      if (failure != null) {
        throw new MalformedPayloadException(Problem.NOT_AS_CODED, "is declared " + coding
            + " but is not (" + failure + "; Content-Encoding '" + declared + "')");
      }
      bytes = out.bytes();
    }
    return bytes;
  }

  /**
   * Decodes one or more gzip members (RFC 1952) into {@code out}; null, or why the bytes are not
   * gzip.
   */
  private static @Nullable String gunzip(byte[] in, Output out) {
    int pos = 0;
    do {
      int start = pos;
      if (in.length - pos < 18) {
        return pos == 0 ? "shorter than a gzip header and trailer" : "bytes after the gzip data";
      }
      if ((in[pos] & 0xff) != 0x1f || (in[pos + 1] & 0xff) != 0x8b) {
        return pos == 0 ? "no gzip magic number" : "bytes after the gzip data";
      }
      if (in[pos + 2] != 8) {
        return "compression method " + (in[pos + 2] & 0xff) + ", not deflate";
      }
      int flags = in[pos + 3] & 0xff;
      if ((flags & GZIP_RESERVED) != 0) {
        return "reserved gzip header flags set";
      }
      pos += 10;
      if ((flags & GZIP_FEXTRA) != 0) {
        if (in.length - pos < 2) {
          return "gzip header cut short";
        }
        pos += 2 + ((in[pos] & 0xff) | (in[pos + 1] & 0xff) << 8);
      }
      for (int field : new int[] {GZIP_FNAME, GZIP_FCOMMENT}) {
        if ((flags & field) != 0) {
          while (pos < in.length && in[pos] != 0) {
            pos++;
          }
          pos++;
        }
      }
      if ((flags & GZIP_FHCRC) != 0) {
        if (pos + 2 > in.length) {
          return "gzip header cut short";
        }
        CRC32 headerCrc = new CRC32();
        headerCrc.update(in, start, pos - start);
        if ((headerCrc.getValue() & 0xffff) != ((in[pos] & 0xff) | (in[pos + 1] & 0xff) << 8)) {
          return "gzip header checksum does not match";
        }
        pos += 2;
      }
      if (pos >= in.length) {
        return "gzip header cut short";
      }
      long before = out.size();
      CRC32 crc = new CRC32();
      int consumed = inflate(in, pos, true, out, crc);
      if (consumed < 0) {
        return "the deflate data is damaged or cut short";
      }
      pos += consumed;
      if (in.length - pos < 8) {
        return "gzip trailer cut short";
      }
      if (le32(in, pos) != crc.getValue()) {
        return "gzip CRC32 does not match";
      }
      if (le32(in, pos + 4) != ((out.size() - before) & 0xffffffffL)) {
        return "gzip length does not match";
      }
      pos += 8;
    } while (pos < in.length);
    return null;
  }

  /**
   * Decodes a zlib stream (RFC 1950, what RFC 9110 calls deflate) or, when the bytes are not one,
   * a raw deflate stream (RFC 1951, what some clients send under that name) into {@code out}.
   */
  private static @Nullable String inflateEither(byte[] in, Output out) {
    if (inflate(in, 0, false, out, null) == in.length) {
      return null;
    }
    out.reset();
    return inflate(in, 0, true, out, null) == in.length ? null
        : "neither a zlib nor a raw deflate stream, whole";
  }

  /**
   * Inflates the stream at {@code from} into {@code out}; returns how many input bytes the stream
   * took, or -1 when it is damaged or ends early.
   */
  private static int inflate(byte[] in, int from, boolean raw, Output out,
      @Nullable CRC32 crc) {
    Inflater inflater = new Inflater(raw);
    try {
      inflater.setInput(in, from, in.length - from);
      byte[] chunk = new byte[8192];
      while (!inflater.finished()) {
        int n = inflater.inflate(chunk);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          return -1;
        }
        out.write(chunk, n);
        if (crc != null) {
          crc.update(chunk, 0, n);
        }
      }
      return in.length - from - inflater.getRemaining();
    } catch (DataFormatException e) {
      return -1;
    } finally {
      inflater.end();
    }
  }

  private static long le32(byte[] b, int at) {
    return (b[at] & 0xffL) | (b[at + 1] & 0xffL) << 8 | (b[at + 2] & 0xffL) << 16
        | (b[at + 3] & 0xffL) << 24;
  }

  /** Decoded bytes up to a limit; the write that passes it is refused. */
  private static final class Output {
    private final long limit;
    private final String declared;
    private byte[] bytes = new byte[256];
    private int size;

    Output(long limit, String declared) {
      this.limit = limit;
      this.declared = declared;
    }

    void write(byte[] chunk, int n) {
      if (size + (long) n > limit || size + (long) n > MAX_ARRAY) {
        throw new PayloadTooLargeException(size + (long) n, limit, declared);
      }
      if (size + n > bytes.length) {
        bytes = Arrays.copyOf(bytes, (int) Math.max(size + n, Math.min(MAX_ARRAY,
            2L * bytes.length)));
      }
      System.arraycopy(chunk, 0, bytes, size, n);
      size += n;
    }

    long size() {
      return size;
    }

    void reset() {
      size = 0;
    }

    byte[] bytes() {
      return Arrays.copyOf(bytes, size);
    }
  }
}
