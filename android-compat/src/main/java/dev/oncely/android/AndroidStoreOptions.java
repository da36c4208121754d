package dev.oncely.android;

import dev.oncely.client.spi.StoreEncryption;
import java.util.Objects;

/**
 * How {@link AndroidSqliteIntentStore} opens its file. Immutable. Defaults: no encryption, and on
 * corruption a typed error with the file left exactly as it was (no quarantine copy).
 *
 * <pre>{@code
 * AndroidStoreOptions options = AndroidStoreOptions.builder()
 *     .encryption(StoreEncryption.aesGcm(keystoreKey))
 *     .quarantineCopies(true)
 *     .build();
 * }</pre>
 */
public final class AndroidStoreOptions {
  private static final AndroidStoreOptions DEFAULTS = builder().build();

  private final StoreEncryption encryption;
  private final boolean quarantineCopies;

  private AndroidStoreOptions(Builder b) {
    this.encryption = b.encryption;
    this.quarantineCopies = b.quarantineCopies;
  }

  /** The defaults: no encryption, no quarantine copies. */
  public static AndroidStoreOptions defaults() {
    return DEFAULTS;
  }

  /** Returns a builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The record encryption, or null for none. */
  public StoreEncryption encryption() {
    return encryption;
  }

  /** Whether a corrupted database is copied aside (never moved or deleted) when SQLite meets it. */
  public boolean quarantineCopies() {
    return quarantineCopies;
  }

  /** Configures {@link AndroidStoreOptions}. Not thread-safe. */
  public static final class Builder {
    private StoreEncryption encryption;
    private boolean quarantineCopies;

    private Builder() {}

    /**
     * Seals each record's key, headers, body, fingerprint and response with {@code encryption}
     * (for example {@link StoreEncryption#aesGcm} with an Android Keystore key). A store created
     * with encryption must always be opened with the same key.
     *
     * @throws NullPointerException if {@code encryption} is null
     */
    public Builder encryption(StoreEncryption encryption) {
      this.encryption = Objects.requireNonNull(encryption, "encryption");
      return this;
    }

    /**
     * When SQLite reports the database corrupted, also copies the database and its
     * {@code -wal}/{@code -shm} files beside them as {@code <name>.corrupt-<UTC timestamp>}, the
     * names every engine uses ({@link dev.oncely.client.spi.Quarantine}), for support or recovery. The original is never moved or deleted either way. Default false:
     * copies hold payloads (encrypted only if the store is) and cost storage.
     */
    public Builder quarantineCopies(boolean quarantineCopies) {
      this.quarantineCopies = quarantineCopies;
      return this;
    }

    /** Returns the options. */
    public AndroidStoreOptions build() {
      return new AndroidStoreOptions(this);
    }
  }
}
