package dev.oncely.persistence;

import dev.oncely.client.RecordCache;
import dev.oncely.client.spi.StoreEncryption;
import java.time.Clock;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How a durable store is opened: encryption, what to do with damaged files, the read cache and
 * group-commit batch size. Immutable and thread-safe; build once and share.
 *
 * <p>Defaults: no encryption, {@link CorruptionPolicy#FAIL}, no quarantine listener, no read
 * cache, {@value #DEFAULT_MAX_BATCH} writes per group commit at most, a checkpoint of the MapDB
 * engine every {@value #DEFAULT_JOURNAL_LIMIT} journal bytes, the system UTC clock.
 */
public final class StoreOptions {
  /** Default upper bound of writes that share one commit. */
  public static final int DEFAULT_MAX_BATCH = 256;

  /** Default journal size (bytes) after which the MapDB engine checkpoints: 64 MiB. */
  public static final long DEFAULT_JOURNAL_LIMIT = 64L << 20;

  private static final StoreOptions DEFAULTS = builder().build();

  private final StoreEncryption encryption;
  private final CorruptionPolicy corruptionPolicy;
  private final Consumer<QuarantineReport> quarantineListener;
  private final RecordCache.Factory cacheFactory;
  private final long cacheSize;
  private final int maxBatch;
  private final long journalLimit;
  private final Clock clock;

  private StoreOptions(Builder b) {
    this.encryption = b.encryption;
    this.corruptionPolicy = b.corruptionPolicy;
    this.quarantineListener = b.quarantineListener;
    this.cacheFactory = b.cacheFactory;
    this.cacheSize = b.cacheSize;
    this.maxBatch = b.maxBatch;
    this.journalLimit = b.journalLimit;
    this.clock = b.clock;
  }

  /** The defaults listed in the class description. */
  public static StoreOptions defaults() {
    return DEFAULTS;
  }

  /** Returns a builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The encryption of sensitive record parts, or null for none. */
  public StoreEncryption encryption() {
    return encryption;
  }

  /** What opening does with damaged files. */
  public CorruptionPolicy corruptionPolicy() {
    return corruptionPolicy;
  }

  /** Told what was moved aside under {@link CorruptionPolicy#QUARANTINE}; never null. */
  public Consumer<QuarantineReport> quarantineListener() {
    return quarantineListener;
  }

  /** Makes the read cache, or null for no cache. */
  public RecordCache.Factory cacheFactory() {
    return cacheFactory;
  }

  /** Most records the read cache holds. */
  public long cacheSize() {
    return cacheSize;
  }

  /** Most writes that share one group commit. */
  public int maxBatch() {
    return maxBatch;
  }

  /** Journal bytes after which the MapDB engine checkpoints (SQLite ignores it). */
  public long journalLimit() {
    return journalLimit;
  }

  /** The clock for quarantine names and purge times. */
  public Clock clock() {
    return clock;
  }

  /** Builds {@link StoreOptions}. Not thread-safe. */
  public static final class Builder {
    private StoreEncryption encryption;
    private CorruptionPolicy corruptionPolicy = CorruptionPolicy.FAIL;
    private Consumer<QuarantineReport> quarantineListener = report -> {};
    private RecordCache.Factory cacheFactory;
    private long cacheSize = 10_000;
    private int maxBatch = DEFAULT_MAX_BATCH;
    private long journalLimit = DEFAULT_JOURNAL_LIMIT;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * Seals keys, headers, bodies and responses with {@code encryption}.
     *
     * @throws NullPointerException if {@code encryption} is null
     */
    public Builder encryption(StoreEncryption encryption) {
      this.encryption = Objects.requireNonNull(encryption, "encryption");
      return this;
    }

    /**
     * Sets what opening does with damaged files.
     *
     * @throws NullPointerException if {@code policy} is null
     */
    public Builder corruptionPolicy(CorruptionPolicy policy) {
      this.corruptionPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Sets who is told what {@link CorruptionPolicy#QUARANTINE} moved aside.
     *
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder onQuarantine(Consumer<QuarantineReport> listener) {
      this.quarantineListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Puts a bounded read cache of at most {@code maximumSize} records in front of the store. The
     * cache is never a source of truth: it holds only what was read from or committed to disk.
     *
     * @throws NullPointerException if {@code factory} is null
     * @throws IllegalArgumentException if {@code maximumSize} is less than 1
     */
    public Builder cache(RecordCache.Factory factory, long maximumSize) {
      if (maximumSize < 1) {
        throw new IllegalArgumentException("cache maximumSize must be >= 1, was " + maximumSize);
      }
      this.cacheFactory = Objects.requireNonNull(factory, "factory");
      this.cacheSize = maximumSize;
      return this;
    }

    /**
     * Sets the most writes that share one group commit.
     *
     * @throws IllegalArgumentException if {@code maxBatch} is less than 1
     */
    public Builder maxBatch(int maxBatch) {
      if (maxBatch < 1) {
        throw new IllegalArgumentException("maxBatch must be >= 1, was " + maxBatch);
      }
      this.maxBatch = maxBatch;
      return this;
    }

    /**
     * Sets how many journal bytes the MapDB engine collects before it checkpoints (writes its
     * working copy out as the new image and empties the journal). Smaller means a shorter replay
     * after a crash and more frequent pauses of a whole-file copy; the SQLite engine ignores it.
     *
     * @throws IllegalArgumentException if {@code bytes} is less than 1
     */
    public Builder journalLimit(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("journalLimit must be >= 1, was " + bytes);
      }
      this.journalLimit = bytes;
      return this;
    }

    /**
     * Sets the clock.
     *
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Returns the options. */
    public StoreOptions build() {
      return new StoreOptions(this);
    }
  }
}
