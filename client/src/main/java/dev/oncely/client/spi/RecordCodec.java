package dev.oncely.client.spi;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.internal.Digests;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Turns an {@link IntentRecord} into self-checking bytes and back. Thread-safe.
 *
 * <p>Layout, version 4 (all integers big-endian):
 * <pre>
 *   magic 'O' 'R' | version u8 | flags u8 (bit 0: sealed part encrypted; bit 1: request dropped)
 *   public part:  scope, operation, businessId?, method, url, mediaType?, pollUrl?, reason?
 *                 state u8 (its {@link #stateCode code}), attempts i32, revision i64, replayed u8,
 *                 createdAt, updatedAt, expiresAt, nextAttemptAt?   (instant = i64 s + i32 ns)
 *                 maybeDelivered u8, keyHeader?,
 *                 retryPolicy? (maxAttempts i32, then baseDelay, maxDelay, deadline and
 *                 attemptTimeout, each i64 s + i32 ns)
 *   sealed part:  u32 length, then either the plain bytes or 12-byte nonce + AES-GCM(bytes)
 *                 with the header and public part as associated data;
 *                 bytes = key, fingerprint, requestDigest (only when bit 1 is set: u32 32, then
 *                 the 32 bytes of the SHA-256), headers, body, lastResponse?
 *                 keyValue?, traceContext (u32 count, name/value strings),
 *                 notes (u32 count, at instant, author, text)
 *   crc32 u32 over everything before it
 * </pre>
 * Version 4 added the request-dropped flag and its digest ({@link IntentRecord#requestDropped()}:
 * a finished record keeps no request body); version 3 records read as records that keep their
 * request, and so do version 2 records (written by pre-release snapshots), which also have no
 * retry policy. Every other version, and flag bits unknown to a record's version, are refused.
 * Enums are stored by explicit codes ({@link #stateCode}), never by declaration order. Strings are u32 length + UTF-8; {@code ?} marks a u8 presence flag before the value. The
 * CRC catches truncation, torn writes and bit flips; GCM additionally catches a wrong key. A codec
 * with a key refuses a plain record ({@link StoreEncryptionException}), so an encrypted store
 * never accepts a record written without its key.
 */
public final class RecordCodec {
  /** The format version this code writes; it also reads {@link #OLDEST_READ_VERSION}. */
  public static final int FORMAT_VERSION = 4;

  /** The oldest format version this code reads: version 2, without a retry policy. */
  public static final int OLDEST_READ_VERSION = 2;

  private static final byte MAGIC_0 = 'O';
  private static final byte MAGIC_1 = 'R';
  private static final int FLAG_ENCRYPTED = 1;
  private static final int FLAG_REQUEST_DROPPED = 2;
  /** The first version with {@link #FLAG_REQUEST_DROPPED}. */
  private static final int REQUEST_DROPPED_SINCE = 4;
  private static final int DIGEST_BYTES = 32;
  /** Never updated; {@link #freshSha256} hands out clones. */
  private static final MessageDigest SHA256_PROTOTYPE = sha256();

  private final Sealing sealing;

  /** A codec that writes plain records and refuses encrypted ones. */
  public RecordCodec() {
    this(null);
  }

  /** A codec that seals the sensitive part with {@code encryption}; null means plain. */
  public RecordCodec(StoreEncryption encryption) {
    this.sealing = new Sealing(encryption);
  }

  /**
   * Returns a fixed-length (32 bytes) lookup key for {@code id}: SHA-256 over the length-prefixed
   * scope, operation and key, so stores can index records without keeping the key in clear.
   */
  public static byte[] lookupKey(IntentId id) {
    return LookupKeys.MINE.get().of(id);
  }

  /**
   * Computes {@link #lookupKey lookup keys} of many ids with one digest and one length buffer, for
   * a loop over a listing (a store checks each listed row's key). Not thread-safe.
   */
  public static final class LookupKeys {
    /** Each thread's calculator for {@link #lookupKey}: a digest per key cost more than the hash. */
    private static final ThreadLocal<LookupKeys> MINE = new ThreadLocal<>() {
      @Override
      protected LookupKeys initialValue() {
        return new LookupKeys();
      }
    };

    private final MessageDigest sha = freshSha256();
    private final byte[] length = new byte[4];
    /** An ASCII part's bytes, written here instead of encoding a new array per part. */
    private final byte[] ascii = new byte[256];

    /** A calculator with its own digest. */
    public LookupKeys() {}

    /** The lookup key of {@code id}, as {@link #lookupKey} returns it. */
    public byte[] of(IntentId id) {
      updateLengthPrefixed(id.scope());
      updateLengthPrefixed(id.operation());
      updateLengthPrefixed(id.key());
      return sha.digest();
    }

    private void updateLengthPrefixed(String part) {
      int n = part.length();
      if (n <= ascii.length && isAscii(part)) {
        for (int i = 0; i < n; i++) {
          ascii[i] = (byte) part.charAt(i);
        }
        updateLength(n);
        sha.update(ascii, 0, n);
      } else {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        updateLength(bytes.length);
        sha.update(bytes);
      }
    }

    private void updateLength(int n) {
      length[0] = (byte) (n >>> 24);
      length[1] = (byte) (n >>> 16);
      length[2] = (byte) (n >>> 8);
      length[3] = (byte) n;
      sha.update(length);
    }
  }

  /**
   * A new SHA-256 digest, cloned from an unused prototype: stores compute a lookup key per write
   * and per listed row, and {@link MessageDigest#getInstance} (a provider look-up and a
   * reflective construction) cost several times the hash of these few bytes.
   */
  private static MessageDigest freshSha256() {
    try {
      return (MessageDigest) SHA256_PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      return sha256();
    }
  }

  /** Returns the bytes of {@code record}. */
  public byte[] encode(IntentRecord record) {
    Scratch buffer = Scratch.take();
    try {
      DataOutputStream out = buffer;
      out.writeByte(MAGIC_0);
      out.writeByte(MAGIC_1);
      out.writeByte(FORMAT_VERSION);
      out.writeByte((sealing.seals() ? FLAG_ENCRYPTED : 0)
          | (record.requestDropped() ? FLAG_REQUEST_DROPPED : 0));
      writePublic(out, record);
      if (!sealing.seals()) {
        // The plain sealed part is written in place: no copy of the body per record written.
        int lengthAt = buffer.length();
        out.writeInt(0);
        writeSealedPart(out, record);
        buffer.putInt(lengthAt, buffer.length() - lengthAt - 4);
      } else {
        byte[] sealed = sealing.seal(sealedPart(record), buffer.copy());
        out.writeInt(sealed.length);
        out.write(sealed);
      }
      CRC32 crc = new CRC32();
      crc.update(buffer.array(), 0, buffer.length());
      out.writeInt((int) crc.getValue());
      return buffer.copy();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    } finally {
      buffer.release();
    }
  }

  /**
   * The buffer a record is encoded into, one per thread and reused: each encode allocates only
   * its result, at its exact length (a buffer per encode, sized by a guess and then copied to
   * size, was most of what writing a record allocated). Growing, it writes in place and is read
   * in place: the checksum reads its array, the body is copied into it once.
   */
  private static final class Scratch extends DataOutputStream {
    /** A buffer grown beyond this is dropped after its encode: a thread keeps at most this much. */
    private static final int KEPT_BYTES = 16 * 1024;
    private static final ThreadLocal<Scratch> MINE = new ThreadLocal<>() {
      @Override
      protected Scratch initialValue() {
        return new Scratch();
      }
    };

    private final Sink sink;
    private boolean busy;

    private Scratch() {
      this(new Sink());
    }

    private Scratch(Sink sink) {
      super(sink);
      this.sink = sink;
    }

    /** This thread's empty buffer, or a new one if it is in use (an encode within an encode). */
    static Scratch take() {
      Scratch s = MINE.get();
      if (s.busy) {
        s = new Scratch();
      }
      s.busy = true;
      s.sink.count = 0;
      return s;
    }

    void release() {
      busy = false;
      if (sink.bytes.length > KEPT_BYTES && MINE.get() == this) {
        MINE.remove();
      }
    }

    @Override
    public void write(int b) {
      sink.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      sink.write(b, off, len);
    }

    @Override
    public void flush() {}

    byte[] array() {
      return sink.bytes;
    }

    /** Bytes written since {@link #take}. */
    int length() {
      return sink.count;
    }

    /**
     * Makes room for {@code length} more bytes and counts them as written; returns the index in
     * {@link #array} where the caller copies them.
     */
    int reserve(int length) {
      sink.ensure(length);
      int at = sink.count;
      sink.count += length;
      return at;
    }

    void putInt(int at, int value) {
      byte[] buf = sink.bytes;
      buf[at] = (byte) (value >>> 24);
      buf[at + 1] = (byte) (value >>> 16);
      buf[at + 2] = (byte) (value >>> 8);
      buf[at + 3] = (byte) value;
    }

    /** What was written, at its exact length. */
    byte[] copy() {
      return Arrays.copyOf(sink.bytes, sink.count);
    }

    private static final class Sink extends OutputStream {
      byte[] bytes = new byte[2048];
      int count;

      void ensure(int more) {
        if (bytes.length - count < more) {
          bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, count + more));
        }
      }

      @Override
      public void write(int b) {
        ensure(1);
        bytes[count++] = (byte) b;
      }

      @Override
      public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, bytes, count, len);
        count += len;
      }
    }
  }

  /**
   * Returns the record held in {@code bytes}.
   *
   * @param where names the store and entry in error messages (never a key)
   * @throws StoreCorruptedException if the bytes are truncated, damaged or of an unknown version
   * @throws StoreEncryptionException if the sealed part cannot be opened with this codec's key, or
   *     the record is plain and this codec has a key
   */
  public IntentRecord decode(byte[] bytes, String where) {
    if (bytes == null || bytes.length < 8) {
      throw new StoreCorruptedException(where + ": record is "
          + (bytes == null ? "missing" : bytes.length + " bytes") + ", shorter than any valid record");
    }
    if (bytes[0] != MAGIC_0 || bytes[1] != MAGIC_1) {
      throw new StoreCorruptedException(where + ": record does not start with the format magic");
    }
    int version = bytes[2] & 0xff;
    if (version < OLDEST_READ_VERSION || version > FORMAT_VERSION) {
      throw new StoreCorruptedException(where + ": record format version " + version
          + " is not supported; this library reads versions " + OLDEST_READ_VERSION + " to "
          + FORMAT_VERSION);
    }
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, bytes.length - 4);
    int stored = ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt();
    if (stored != (int) crc.getValue()) {
      throw new StoreCorruptedException(String.format(
          "%s: record checksum mismatch (stored %08x, computed %08x, %d bytes)",
          where, stored, (int) crc.getValue(), bytes.length));
    }
    int known = version >= REQUEST_DROPPED_SINCE ? FLAG_ENCRYPTED | FLAG_REQUEST_DROPPED
        : FLAG_ENCRYPTED;
    if ((bytes[3] & ~known) != 0) {
      throw new StoreCorruptedException(where + ": record flags " + (bytes[3] & 0xff)
          + " hold unknown bits");
    }
    boolean encrypted = (bytes[3] & FLAG_ENCRYPTED) != 0;
    boolean requestDropped = (bytes[3] & FLAG_REQUEST_DROPPED) != 0;
    if (!encrypted) {
      sealing.checkPlain(where, "record");
    }
    try {
      ByteArrayInputStream body = new ByteArrayInputStream(bytes, 4, bytes.length - 8);
      DataInputStream in = new DataInputStream(body);
      PublicPart pub = readPublic(in, version);
      int publicEnd = bytes.length - 4 - body.available();
      int sealedLength = in.readInt();
      if (sealedLength < 0 || sealedLength != in.available()) {
        throw new StoreCorruptedException(where + ": sealed part length " + sealedLength
            + " does not match the record size " + bytes.length);
      }
      byte[] sealed = new byte[sealedLength];
      in.readFully(sealed);
      byte[] aad = Arrays.copyOfRange(bytes, 0, publicEnd);
      byte[] plain = encrypted ? sealing.open(sealed, aad, where, "record") : sealed;
      return readSealed(new DataInputStream(new ByteArrayInputStream(plain)), pub, requestDropped);
    } catch (EOFException | IllegalArgumentException | IllegalStateException | ArithmeticException
        | NullPointerException e) {
      throw new StoreCorruptedException(where + ": record fields are malformed: " + e.getMessage(),
          e);
    } catch (IOException e) {
      throw new UncheckedIOException("reading from memory cannot fail", e);
    }
  }

  private record PublicPart(
      String scope, String operation, String businessId, String method, String url,
      String mediaType, String pollUrl, String reason, IntentState state, int attempts,
      long revision, boolean replayed, Instant createdAt, Instant updatedAt, Instant expiresAt,
      Instant nextAttemptAt, boolean maybeDelivered, String keyHeader, RetryPolicy retryPolicy) {}

  private static void writePublic(DataOutputStream out, IntentRecord r) throws IOException {
    writeString(out, r.id().scope());
    writeString(out, r.id().operation());
    writeOptionalString(out, r.businessId());
    writeString(out, r.method());
    writeString(out, r.url());
    writeOptionalString(out, r.mediaType());
    writeOptionalString(out, r.pollUrl());
    writeOptionalString(out, r.reason());
    out.writeByte(stateCode(r.state()));
    out.writeInt(r.attempts());
    out.writeLong(r.revision());
    out.writeBoolean(r.replayed());
    writeInstant(out, r.createdAt());
    writeInstant(out, r.updatedAt());
    writeInstant(out, r.expiresAt());
    out.writeBoolean(r.nextAttemptAt() != null);
    if (r.nextAttemptAt() != null) {
      writeInstant(out, r.nextAttemptAt());
    }
    out.writeBoolean(r.maybeDelivered());
    writeOptionalString(out, r.keyHeader());
    RetryPolicy policy = r.retryPolicy();
    out.writeBoolean(policy != null);
    if (policy != null) {
      out.writeInt(policy.maxAttempts());
      writeDuration(out, policy.baseDelay());
      writeDuration(out, policy.maxDelay());
      writeDuration(out, policy.deadline());
      writeDuration(out, policy.attemptTimeout());
    }
  }

  /**
   * The stored code of {@code state}: fixed forever, whatever the order of the enum's constants
   * (a new state takes a new code; a code is never reused).
   */
  static int stateCode(IntentState state) {
    return switch (state) {
      case NEW -> 0;
      case IN_FLIGHT -> 1;
      case PENDING -> 2;
      case COMPLETED -> 3;
      case REJECTED -> 4;
      case KEY_CONFLICT -> 5;
      case NEEDS_RECONCILIATION -> 6;
    };
  }

  private static IntentState stateOf(int code) {
    return switch (code) {
      case 0 -> IntentState.NEW;
      case 1 -> IntentState.IN_FLIGHT;
      case 2 -> IntentState.PENDING;
      case 3 -> IntentState.COMPLETED;
      case 4 -> IntentState.REJECTED;
      case 5 -> IntentState.KEY_CONFLICT;
      case 6 -> IntentState.NEEDS_RECONCILIATION;
      default -> throw new IllegalArgumentException("unknown state code " + code);
    };
  }

  private static PublicPart readPublic(DataInputStream in, int version) throws IOException {
    String scope = readString(in);
    String operation = readString(in);
    String businessId = readOptionalString(in);
    String method = readString(in);
    String url = readString(in);
    String mediaType = readOptionalString(in);
    String pollUrl = readOptionalString(in);
    String reason = readOptionalString(in);
    IntentState state = stateOf(in.readUnsignedByte());
    int attempts = in.readInt();
    long revision = in.readLong();
    boolean replayed = in.readBoolean();
    Instant createdAt = readInstant(in);
    Instant updatedAt = readInstant(in);
    Instant expiresAt = readInstant(in);
    Instant nextAttemptAt = in.readBoolean() ? readInstant(in) : null;
    boolean maybeDelivered = in.readBoolean();
    String keyHeader = readOptionalString(in);
    RetryPolicy retryPolicy = version >= 3 && in.readBoolean() ? RetryPolicy.builder()
        .maxAttempts(in.readInt())
        .baseDelay(readDuration(in))
        .maxDelay(readDuration(in))
        .deadline(readDuration(in))
        .attemptTimeout(readDuration(in))
        .build() : null;
    return new PublicPart(scope, operation, businessId, method, url, mediaType, pollUrl, reason,
        state, attempts, revision, replayed, createdAt, updatedAt, expiresAt,
        nextAttemptAt, maybeDelivered, keyHeader, retryPolicy);
  }

  private static byte[] sealedPart(IntentRecord r) throws IOException {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 + r.bodyLength());
    DataOutputStream out = new DataOutputStream(buffer);
    writeSealedPart(out, r);
    out.flush();
    return buffer.toByteArray();
  }

  private static void writeSealedPart(DataOutputStream out, IntentRecord r) throws IOException {
    writeString(out, r.id().key());
    writeString(out, r.fingerprint());
    if (r.requestDropped()) {
      writeBytes(out, Digests.unhex(r.requestDigest()));
    }
    writeHeaders(out, r.headers());
    if (out instanceof Scratch scratch) {
      out.writeInt(r.bodyLength());
      int at = scratch.reserve(r.bodyLength());
      r.copyBodyTo(scratch.array(), at);
    } else {
      writeBytes(out, r.body());
    }
    StoredResponse response = r.lastResponse();
    out.writeBoolean(response != null);
    if (response != null) {
      out.writeShort(response.status());
      writeHeaders(out, response.headers());
      if (out instanceof Scratch scratch) {
        out.writeInt(response.bodyLength());
        int at = scratch.reserve(response.bodyLength());
        response.copyBodyTo(scratch.array(), at);
      } else {
        writeBytes(out, response.body());
      }
    }
    writeOptionalString(out, r.keyValue());
    out.writeInt(r.traceContext().size());
    for (Map.Entry<String, String> e : r.traceContext().entrySet()) {
      writeString(out, e.getKey());
      writeString(out, e.getValue());
    }
    out.writeInt(r.notes().size());
    for (IntentRecord.Note note : r.notes()) {
      writeInstant(out, note.at());
      writeString(out, note.author());
      writeString(out, note.text());
    }
  }

  private static IntentRecord readSealed(DataInputStream in, PublicPart p, boolean requestDropped)
      throws IOException {
    String key = readString(in);
    String fingerprint = readString(in);
    String requestDigest = null;
    if (requestDropped) {
      byte[] digest = readBytes(in);
      if (digest.length != DIGEST_BYTES) {
        throw new IllegalArgumentException("request digest of " + digest.length + " bytes");
      }
      requestDigest = Digests.hex(digest);
    }
    Map<String, List<String>> headers = readHeaders(in);
    byte[] body = readBytes(in);
    StoredResponse response = null;
    if (in.readBoolean()) {
      int status = in.readUnsignedShort();
      response = StoredResponse.of(status, readHeaders(in), readBytes(in));
    }
    String keyValue = readOptionalString(in);
    Map<String, String> traceContext = new LinkedHashMap<>();
    int fields = readCount(in, "trace field");
    for (int i = 0; i < fields; i++) {
      traceContext.put(readString(in), readString(in));
    }
    List<IntentRecord.Note> notes = new ArrayList<>();
    int count = readCount(in, "note");
    for (int i = 0; i < count; i++) {
      notes.add(new IntentRecord.Note(readInstant(in), readString(in), readString(in)));
    }
    if (in.available() != 0) {
      throw new IllegalArgumentException(in.available() + " unexpected bytes after the fields");
    }
    IntentRecord.Builder b = IntentRecord.builder()
        .id(IntentId.of(p.scope(), p.operation(), key))
        .businessId(p.businessId())
        .method(p.method())
        .url(p.url())
        .headers(headers)
        .body(body, p.mediaType())
        .fingerprint(fingerprint)
        .state(p.state())
        .attempts(p.attempts())
        .nextAttemptAt(p.nextAttemptAt())
        .pollUrl(p.pollUrl())
        .lastResponse(response)
        .replayed(p.replayed())
        .reason(p.reason())
        .createdAt(p.createdAt())
        .updatedAt(p.updatedAt())
        .expiresAt(p.expiresAt())
        .revision(p.revision())
        .maybeDelivered(p.maybeDelivered())
        .keyWireForm(p.keyHeader(), keyValue)
        .traceContext(traceContext)
        .notes(notes)
        .retryPolicy(p.retryPolicy());
    if (requestDigest != null) {
      b.droppedRequest(requestDigest);
    }
    return b.build();
  }

  private static int readCount(DataInputStream in, String what) throws IOException {
    int count = in.readInt();
    if (count < 0 || count > in.available()) {
      throw new IllegalArgumentException(what + " count " + count + " is impossible");
    }
    return count;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    if (isAscii(s)) {
      // Its UTF-8 bytes are its chars' low bytes, written without encoding the string first.
      out.writeInt(s.length());
      out.writeBytes(s);
    } else {
      writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static boolean isAscii(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  private static String readString(DataInputStream in) throws IOException {
    return new String(readBytes(in), StandardCharsets.UTF_8);
  }

  private static void writeOptionalString(DataOutputStream out, String s) throws IOException {
    out.writeBoolean(s != null);
    if (s != null) {
      writeString(out, s);
    }
  }

  private static String readOptionalString(DataInputStream in) throws IOException {
    return in.readBoolean() ? readString(in) : null;
  }

  private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > in.available()) {
      throw new IllegalArgumentException(
          "field length " + length + " exceeds the " + in.available() + " bytes left");
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }

  private static void writeDuration(DataOutputStream out, Duration d) throws IOException {
    out.writeLong(d.getSeconds());
    out.writeInt(d.getNano());
  }

  private static Duration readDuration(DataInputStream in) throws IOException {
    return Duration.ofSeconds(in.readLong(), in.readInt());
  }

  private static void writeInstant(DataOutputStream out, Instant t) throws IOException {
    out.writeLong(t.getEpochSecond());
    out.writeInt(t.getNano());
  }

  private static Instant readInstant(DataInputStream in) throws IOException {
    long seconds = in.readLong();
    int nanos = in.readInt();
    if (seconds < Instant.MIN.getEpochSecond() || seconds > Instant.MAX.getEpochSecond()
        || nanos < 0 || nanos > 999_999_999) {
      throw new IllegalArgumentException("instant " + seconds + " s + " + nanos
          + " ns is out of range");
    }
    return Instant.ofEpochSecond(seconds, nanos);
  }

  private static void writeHeaders(DataOutputStream out, Map<String, List<String>> headers)
      throws IOException {
    out.writeInt(headers.size());
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      writeString(out, e.getKey());
      out.writeInt(e.getValue().size());
      for (String v : e.getValue()) {
        writeString(out, v);
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
}
