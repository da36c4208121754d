package dev.oncely.persistence.internal.mapdb;

import java.io.IOException;
import java.nio.Buffer;
import org.mapdb.DataInput2;

/**
 * MapDB's reader of a memory-mapped volume, with bulk reads that allocate nothing: MapDB's own
 * ({@link DataInput2.ByteBuffer}) makes a new buffer view for every byte array it reads, and
 * decoding one B-tree node reads one array per key and per value, so a put into an index made
 * dozens of views (about a third of everything the MapDB engine allocated per write, as
 * measured). This one makes one view per reader, on its first bulk read; every other call goes
 * to MapDB's reader, whose position both share.
 */
final class ByteBufferInput extends DataInput2 {
  private final DataInput2.ByteBuffer in;
  private java.nio.ByteBuffer view;

  ByteBufferInput(DataInput2.ByteBuffer in) {
    this.in = in;
  }

  /** {@code input}, with allocation-free bulk reads if it reads a byte buffer. */
  static DataInput2 of(DataInput2 input) {
    return input instanceof DataInput2.ByteBuffer b ? new ByteBufferInput(b) : input;
  }

  @Override
  public void readFully(byte[] b, int off, int len) {
    java.nio.ByteBuffer v = view;
    if (v == null) {
      v = in.buf.duplicate();
      view = v;
    }
    ((Buffer) v).position(in.pos);
    v.get(b, off, len);
    in.pos += len;
  }

  @Override
  public int skipBytes(int n) throws IOException {
    return in.skipBytes(n);
  }

  @Override
  public boolean readBoolean() throws IOException {
    return in.readBoolean();
  }

  @Override
  public byte readByte() throws IOException {
    return in.readByte();
  }

  @Override
  public int readUnsignedByte() throws IOException {
    return in.readUnsignedByte();
  }

  @Override
  public short readShort() throws IOException {
    return in.readShort();
  }

  @Override
  public char readChar() throws IOException {
    return in.readChar();
  }

  @Override
  public int readInt() throws IOException {
    return in.readInt();
  }

  @Override
  public long readLong() throws IOException {
    return in.readLong();
  }

  @Override
  public int getPos() {
    return in.getPos();
  }

  @Override
  public void setPos(int pos) {
    in.setPos(pos);
  }

  @Override
  public byte[] internalByteArray() {
    return in.internalByteArray();
  }

  @Override
  public java.nio.ByteBuffer internalByteBuffer() {
    return in.internalByteBuffer();
  }

  @Override
  public void close() {
    in.close();
  }

  @Override
  public long unpackLong() throws IOException {
    return in.unpackLong();
  }

  @Override
  public int unpackInt() throws IOException {
    return in.unpackInt();
  }

  @Override
  public long[] unpackLongArrayDeltaCompression(int size) throws IOException {
    return in.unpackLongArrayDeltaCompression(size);
  }

  @Override
  public void unpackLongArray(long[] array, int start, int end) {
    in.unpackLongArray(array, start, end);
  }

  @Override
  public void unpackIntArray(int[] array, int start, int end) {
    in.unpackIntArray(array, start, end);
  }

  @Override
  public void unpackLongSkip(int length) {
    in.unpackLongSkip(length);
  }
}
