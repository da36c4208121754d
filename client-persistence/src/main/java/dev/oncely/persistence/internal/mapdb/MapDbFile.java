package dev.oncely.persistence.internal.mapdb;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreException;
import dev.oncely.persistence.internal.StoreFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import org.mapdb.BTreeMap;
import org.mapdb.DB;
import org.mapdb.HTreeMap;
import org.mapdb.Serializer;
import org.mapdb.StoreDirect;
import org.mapdb.volume.MappedFileVol;
import org.mapdb.volume.Volume;
import org.mapdb.volume.VolumeFactory;

/**
 * One MapDB file (the store's image, opened as its private working view, or a file being built):
 * MapDB's {@code StoreDirect} (no write-ahead log, no
 * transactions: the engine's own journal is the commit log) on memory-mapped volumes, with four
 * maps of {@code byte[]} to {@code byte[]}: {@link #RECORDS} (lookup key to codec bytes) and
 * {@link #BUSINESS} (business key to lookup key), {@code HTreeMap}s, since they are only ever
 * read by key (a lookup, hit or miss, reads a few small index nodes instead of deserializing
 * B-tree nodes of 32 keys each: 4x cheaper per miss, measured in docs/benchmarks.md); {@link #UNFINISHED}
 * and {@link #EXPIRY}, time-ordered {@code BTreeMap}s whose keys end with the lookup key; plus a
 * meta map holding the layout version and the commit sequence number the file holds.
 *
 * <p>In the working view ({@link #openView}) writes land in private memory and reach the image
 * only through a checkpoint. A file opened otherwise ({@link #create}) is written in place and is
 * complete only after {@link #close} and a force of the file; the engine renames it into place
 * only then. Every {@link RuntimeException} MapDB throws while
 * opening or reading becomes a {@link StoreCorruptedException} naming the path. A failed open
 * closes every volume MapDB had opened (MapDB itself leaks them), and MapDB's own file lock is off:
 * the store holds its own. One writer thread; readers may run beside it (MapDB's maps are
 * concurrent), but the engine keeps them out while commits are applied.
 */
public final class MapDbFile implements MapDbView, AutoCloseable {
  /** Map index: lookup key to record bytes. */
  static final int RECORDS = 0;
  /** Map index: (createdAt, lookup key) for records in a non-terminal state. */
  static final int UNFINISHED = 1;
  /** Map index: business key to lookup key. */
  static final int BUSINESS = 2;
  /** Map index: (expiresAt, lookup key) for records in a terminal state. */
  static final int EXPIRY = 3;

  static final int LAYOUT_VERSION = 3;
  private static final String[] NAMES = {"records", "unfinished", "business", "expiry"};
  private static final byte[] META_LAYOUT = "layout".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] META_SEQUENCE = "sequence".getBytes(StandardCharsets.US_ASCII);
  private static final long LOCK_DISABLED = -1L;
  private static final int CONCURRENCY_SHIFT = 3;
  private static final long ALLOCATE_INCREMENT = 1L << 20;

  private final Path path;
  private final DB db;
  private final List<ConcurrentMap<byte[], byte[]>> maps;
  private final BTreeMap<byte[], byte[]> meta;
  private final DirtyPages dirty;
  /** The private mapping of an image's working view; null for a file MapDB writes itself. */
  private final PrivateMappedVolume view;

  private MapDbFile(Path path, DB db, List<ConcurrentMap<byte[], byte[]>> maps,
      BTreeMap<byte[], byte[]> meta, DirtyPages dirty, PrivateMappedVolume view) {
    this.path = path;
    this.db = db;
    this.maps = maps;
    this.meta = meta;
    this.dirty = dirty;
    this.view = view;
  }

  /**
   * Creates a new, empty file at {@code path} (deleting what is there) holding commit sequence
   * {@code sequence}, owner-only.
   *
   * @throws StoreException if the file cannot be written
   */
  public static MapDbFile create(Path path, long sequence, FileIo io) {
    delete(path);
    MapDbFile file = open(path, true, io, false, null);
    try {
      file.meta.put(META_LAYOUT, longBytes(LAYOUT_VERSION));
      file.meta.put(META_SEQUENCE, longBytes(sequence));
      return file;
    } catch (RuntimeException e) {
      file.closeQuietly(e);
      throw e instanceof StoreException s ? s
          : new StoreException("cannot create " + path + ": " + e, e);
    }
  }

  /**
   * Opens the existing file at {@code path}.
   *
   * @throws StoreCorruptedException if the file is missing, fails to open or lacks a map
   * @throws StoreException if it has another layout version (left untouched, never quarantined)
   */
  static MapDbFile openExisting(Path path, FileIo io) {
    return openExisting(path, io, false, null);
  }

  /**
   * Opens the image at {@code path} as the working view: mapped privately
   * ({@link PrivateMappedVolume}), so nothing MapDB writes reaches the file; a checkpoint reads
   * the pages it wrote ({@link #writtenPages}, {@link #pages}) and writes them in place itself.
   *
   * @throws StoreCorruptedException if the file is missing, fails to open or lacks a map
   * @throws StoreException if it has another layout version (left untouched, never quarantined)
   */
  static MapDbFile openView(Path path, FileIo io) {
    return openExisting(path, io, true, null);
  }

  /**
   * Opens MapDB again over the working view of {@code closed}, which a checkpoint closed after
   * writing every page MapDB wrote into it into the image, so the view reads as the image: the
   * private pages stay mapped, and the commits after the checkpoint do not fault them in again.
   * Marks of written pages start anew. If it fails, the view is released.
   *
   * @throws StoreCorruptedException if MapDB fails to open it
   * @throws IllegalStateException if {@code closed} is not a working view or was released
   */
  static MapDbFile reopenView(MapDbFile closed, FileIo io) {
    PrivateMappedVolume view = closed.requireView();
    try {
      view.reopen();
      return openExisting(closed.path, io, true, view);
    } catch (RuntimeException e) {
      view.release();
      throw e;
    }
  }

  private static MapDbFile openExisting(Path path, FileIo io, boolean privateView,
      PrivateMappedVolume mapped) {
    if (!Files.isRegularFile(path)) {
      throw new StoreCorruptedException(path + ": the MapDB image is missing");
    }
    MapDbFile file = open(path, false, io, privateView, mapped);
    try {
      byte[] layout = file.meta.get(META_LAYOUT);
      if (layout == null || layout.length != 8) {
        throw new StoreCorruptedException(path + ": the layout version entry is missing");
      }
      long version = ByteBuffer.wrap(layout).getLong();
      if (version != LAYOUT_VERSION) {
        throw new StoreException(path + ": MapDB layout version " + version
            + " is not supported; this library reads version " + LAYOUT_VERSION
            + (version > LAYOUT_VERSION ? " (a newer Oncely wrote it?" : " (an Oncely snapshot"
            + " before 0.1.0 wrote it: drain it with that version, or delete it;")
            + " it is left untouched)");
      }
      return file;
    } catch (RuntimeException e) {
      file.closeQuietly(e);
      if (file.view != null) {
        file.view.release();
      }
      if (e instanceof StoreException && !(e instanceof StoreCorruptedException)) {
        throw e;
      }
      throw corrupted(path, "reading the layout version", e);
    }
  }

  /** Opens MapDB on {@code path}; a private view reuses {@code mapped} if it is not null. */
  private static MapDbFile open(Path path, boolean create, FileIo io, boolean privateView,
      PrivateMappedVolume mapped) {
    DirtyPages dirty = new DirtyPages();
    TrackingVolumes volumes = new TrackingVolumes(io, path, dirty, privateView);
    volumes.view = mapped;
    DB db = null;
    try {
      StoreDirect store = StoreDirect.Companion.make(path.toString(), volumes, LOCK_DISABLED,
          false, true, CONCURRENCY_SHIFT, ALLOCATE_INCREMENT, 0L, false, false, false, true,
          false);
      db = new DB(store, !create, true, MapDbFile.class.getClassLoader(), 0);
      List<ConcurrentMap<byte[], byte[]>> maps = new ArrayList<>(NAMES.length);
      for (int map = 0; map < NAMES.length; map++) {
        maps.add(map == RECORDS || map == BUSINESS ? hashMap(db, NAMES[map], create)
            : treeMap(db, NAMES[map], create));
      }
      BTreeMap<byte[], byte[]> meta = treeMap(db, "meta", create);
      volumes.stopTracking();
      return new MapDbFile(path, db, maps, meta, dirty, volumes.view);
    } catch (RuntimeException | Error e) {
      if (db != null) {
        try {
          db.close();
        } catch (RuntimeException closeFailure) {
          e.addSuppressed(closeFailure);
        }
      }
      volumes.closeAll(e);
      if (volumes.view != null) {
        volumes.view.release();
      }
      if (e instanceof Error error && !(e instanceof StackOverflowError)
          && !(e instanceof AssertionError)) {
        throw error;
      }
      if (create) {
        throw new StoreException("cannot create the MapDB file " + path + ": " + e, e);
      }
      throw corrupted(path, "opening", e);
    }
  }

  private static BTreeMap<byte[], byte[]> treeMap(DB db, String name, boolean create) {
    DB.TreeMapMaker<byte[], byte[]> maker =
        db.treeMap(name, Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY);
    if (name.equals(NAMES[UNFINISHED])) {
      // Leaf nodes then hold keys and pointers to the stubs only: an insert rewrites a small node.
      maker = maker.valuesOutsideNodesEnable();
    }
    return create ? maker.create() : maker.open();
  }

  private static HTreeMap<byte[], byte[]> hashMap(DB db, String name, boolean create) {
    DB.HashMapMaker<byte[], byte[]> maker =
        db.hashMap(name, Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY);
    return create ? maker.create() : maker.open();
  }

  /** The file's path. */
  @Override
  public Path path() {
    return path;
  }

  /** The commit sequence number stored in this copy. */
  long sequence() {
    try {
      byte[] bytes = meta.get(META_SEQUENCE);
      if (bytes == null || bytes.length != 8) {
        throw new StoreCorruptedException(path + ": the commit sequence entry is missing");
      }
      return ByteBuffer.wrap(bytes).getLong();
    } catch (RuntimeException e) {
      throw corrupted(path, "reading the commit sequence", e);
    }
  }

  /** Sets the commit sequence number the file holds. */
  void sequence(long sequence) {
    meta.put(META_SEQUENCE, longBytes(sequence));
  }

  /** Returns the value under {@code key} in map {@code map}, or null. */
  @Override
  public byte[] get(int map, byte[] key) {
    try {
      return maps.get(map).get(key);
    } catch (RuntimeException e) {
      throw corrupted(path, "reading the " + NAMES[map] + " map", e);
    }
  }

  /** Nothing read from a file is known decoded. */
  @Override
  public IntentRecord known(byte[] lookup) {
    return null;
  }

  /**
   * The {@value DirtyPages#PAGE}-byte pages MapDB wrote since this file was opened, closing
   * included (page i covers bytes i * PAGE to (i + 1) * PAGE).
   */
  BitSet writtenPages() {
    return dirty.marked();
  }

  /** How many pages MapDB wrote since the file was opened; may lag the writer thread. */
  int writtenPageCount() {
    return dirty.count();
  }

  /**
   * The working view's length: the image's, plus the slices MapDB added since it was opened.
   *
   * @throws IllegalStateException if this is not a working view
   */
  long viewLength() {
    return requireView().length();
  }

  /**
   * Reads the working view's pages, MapDB's writes included, until {@link #release}: also after
   * {@link #close}, which writes MapDB's header checksum into it.
   *
   * @throws IllegalStateException if this is not a working view
   */
  BlockCrcs.Pages pages() {
    PrivateMappedVolume v = requireView();
    return (page, into) -> v.read((long) page * DirtyPages.PAGE, into, into.length);
  }

  /**
   * Counts {@code written} among the pages the working view holds in private memory and returns
   * how many it holds: every page MapDB wrote since the image was mapped, across reopenings.
   *
   * @throws IllegalStateException if this is not a working view
   */
  int holdPrivately(BitSet written) {
    return requireView().hold(written);
  }

  /** Closes, then drops the working view's private pages and mapping. Idempotent. */
  void release() {
    try {
      close();
    } finally {
      if (view != null) {
        view.release();
      }
    }
  }

  private PrivateMappedVolume requireView() {
    if (view == null) {
      throw new IllegalStateException(path + " is not opened as a working view");
    }
    return view;
  }

  /** The share of the file's bytes that MapDB holds free for reuse, from 0 to 1. */
  double freeShare() {
    try {
      StoreDirect store = (StoreDirect) db.getStore();
      long total = store.getTotalSize();
      return total <= 0 ? 0 : (double) store.getFreeSize() / total;
    } catch (RuntimeException e) {
      throw corrupted(path, "reading the free space", e);
    }
  }

  /** Puts {@code value} under {@code key}. */
  public void put(int map, byte[] key, byte[] value) {
    maps.get(map).put(key, value);
  }

  /** Removes {@code key}. */
  public void remove(int map, byte[] key) {
    maps.get(map).remove(key);
  }

  /**
   * Returns the entries of map {@code map} with keys in [{@code from}, {@code to}) in key order
   * ({@code to} null: to the end). Iteration failures become {@link StoreCorruptedException}.
   */
  Iterable<Map.Entry<byte[], byte[]>> range(int map, byte[] from, byte[] to) {
    if (!(maps.get(map) instanceof BTreeMap<byte[], byte[]> m)) {
      throw new IllegalArgumentException("the " + NAMES[map] + " map has no order");
    }
    Iterable<Map.Entry<byte[], byte[]>> view = () -> (to == null
        ? m.tailMap(from, true) : m.subMap(from, true, to, false)).entrySet().iterator();
    return () -> guarded(view.iterator(), NAMES[map]);
  }

  /** Returns every entry of map {@code map}: in key order for the time-ordered indexes. */
  public Iterable<Map.Entry<byte[], byte[]>> all(int map) {
    ConcurrentMap<byte[], byte[]> m = maps.get(map);
    return () -> guarded(m.entrySet().iterator(), NAMES[map]);
  }

  /**
   * Walks every map from end to end, so damaged tree nodes show up now instead of as a missing
   * record later, and returns how many records the copy holds.
   *
   * @throws StoreCorruptedException if MapDB fails to read a node
   */
  public long walk() {
    long records = 0;
    for (int i = 0; i < NAMES.length; i++) {
      Iterator<byte[]> keys = guarded(maps.get(i).keySet().iterator(), NAMES[i]);
      long n = 0;
      while (keys.hasNext()) {
        keys.next();
        n++;
      }
      if (i == RECORDS) {
        records = n;
      }
    }
    return records;
  }

  /**
   * Writes MapDB's header checksum and closes its volumes. Idempotent. The file is complete on
   * disk only once the file is also forced.
   */
  @Override
  public void close() {
    if (!db.isClosed()) {
      db.close();
    }
  }

  /** Closes, adding any failure to {@code primary}. */
  void closeQuietly(Throwable primary) {
    try {
      close();
    } catch (RuntimeException e) {
      primary.addSuppressed(e);
    }
  }

  /** Deletes {@code path} if it exists. */
  public static void delete(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new StoreException("cannot delete " + path + ": " + e, e);
    }
  }

  static byte[] longBytes(long value) {
    return ByteBuffer.allocate(8).putLong(value).array();
  }

  private static StoreCorruptedException corrupted(Path path, String doing, Throwable e) {
    if (e instanceof StoreCorruptedException c) {
      return c;
    }
    return new StoreCorruptedException(path + ": MapDB failed while " + doing + ": "
        + e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
  }

  private <E> Iterator<E> guarded(Iterator<E> inner, String mapName) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        try {
          return inner.hasNext();
        } catch (RuntimeException e) {
          throw corrupted(path, "iterating the " + mapName + " map", e);
        }
      }

      @Override
      public E next() {
        try {
          return inner.next();
        } catch (RuntimeException e) {
          throw corrupted(path, "iterating the " + mapName + " map", e);
        }
      }
    };
  }

  /**
   * Opens MapDB's volumes as memory-mapped files (writes are stores into the page cache, no system
   * call per write; durability comes from the journal) and remembers those opened while the file
   * is being opened, so a failed open can close them (MapDB does not).
   */
  private static final class TrackingVolumes extends VolumeFactory {
    private static final VolumeFactory MAPPED = new MappedFileVol.MappedFileFactory(true, false);

    private final FileIo io;
    private final Path path;
    private final DirtyPages dirty;
    private final boolean privateView;
    private final List<Volume> opened = new ArrayList<>();
    private volatile boolean tracking = true;
    /** The private mapping of {@code path}: given to reuse, or made once MapDB asks for it. */
    PrivateMappedVolume view;

    TrackingVolumes(FileIo io, Path path, DirtyPages dirty, boolean privateView) {
      this.io = io;
      this.path = path;
      this.dirty = dirty;
      this.privateView = privateView;
    }

    @Override
    public Volume makeVolume(String file, boolean readOnly, long fileLockWait, int sliceShift,
        long initSize, boolean fixedSize) {
      if (!readOnly) {
        try {
          StoreFiles.createOwnerOnly(Paths.get(file));
        } catch (IOException e) {
          throw new StoreException("cannot create " + file + " owner-only: " + e, e);
        }
      }
      Volume volume;
      if (privateView && Paths.get(file).equals(path)) {
        try {
          if (view == null) {
            view = PrivateMappedVolume.map(path, sliceShift);
          }
        } catch (IOException e) {
          throw new StoreException("cannot map " + file + ": " + e, e);
        }
        // Not through io: what MapDB writes here never reaches the file.
        volume = CommitCrashPoints.wrap(view);
      } else {
        volume = CommitCrashPoints.wrap(io.volume(Paths.get(file), MAPPED.makeVolume(
            file, readOnly, fileLockWait, sliceShift, initSize, fixedSize)));
      }
      if (Paths.get(file).equals(path)) {
        volume = dirty.wrap(volume);
      }
      if (tracking) {
        synchronized (opened) {
          opened.add(volume);
        }
      }
      return volume;
    }

    @Override
    public boolean exists(String file) {
      return MAPPED.exists(file);
    }

    @Override
    public boolean handlesReadonly() {
      return MAPPED.handlesReadonly();
    }

    void stopTracking() {
      tracking = false;
      synchronized (opened) {
        opened.clear();
      }
    }

    void closeAll(Throwable primary) {
      synchronized (opened) {
        for (Volume v : opened) {
          try {
            v.close();
          } catch (RuntimeException e) {
            primary.addSuppressed(e);
          }
        }
        opened.clear();
      }
    }
  }
}
