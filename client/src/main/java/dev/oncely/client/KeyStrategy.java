package dev.oncely.client;

import dev.oncely.client.internal.Keys;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * How an {@link IntentSpec} gets its idempotency key when it is built. Immutable and thread-safe.
 *
 * <ul>
 *   <li>{@link #random()} (the default): 192 bits from {@code SecureRandom}, URL-safe base64 without
 *       padding (32 characters).
 *   <li>{@link #derived(byte[])}: HMAC-SHA256 of scope, operation and business id under an app
 *       secret, so a lost store can re-create the very same key for the same business event.
 *   <li>{@link #existing(String)}: a key the app already holds (for example one kept in its own
 *       database); the key is used as given.
 * </ul>
 */
public abstract class KeyStrategy {
  private static final int MIN_SECRET_BYTES = 16;
  private static final KeyStrategy RANDOM_STRATEGY = new Random();

  private KeyStrategy() {}

  /** Random keys: 192 bits from {@code SecureRandom}, URL-safe base64. */
  public static KeyStrategy random() {
    return RANDOM_STRATEGY;
  }

  /**
   * Keys derived from the intent's business id: {@code HMAC-SHA256(appSecret, scope, operation,
   * businessId)}, URL-safe base64. An intent built with this strategy must carry a business id.
   *
   * @throws NullPointerException if {@code appSecret} is null
   * @throws IllegalArgumentException if {@code appSecret} is shorter than 16 bytes
   */
  public static KeyStrategy derived(byte[] appSecret) {
    Objects.requireNonNull(appSecret, "appSecret");
    if (appSecret.length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException(
          "appSecret must have at least " + MIN_SECRET_BYTES + " bytes, had " + appSecret.length);
    }
    return new Derived(appSecret.clone());
  }

  /**
   * The given key, unchanged: for keys the app already stores elsewhere.
   *
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException if {@code key} is blank, longer than
   *     {@link IntentId#MAX_PART_LENGTH} or holds a character a header cannot carry (keys are
   *     visible ASCII, {@link Identifiers#checkKey})
   */
  public static KeyStrategy existing(String key) {
    return new Existing(Identifiers.checkKey("key", key));
  }

  /** Whether this strategy needs a business id on the intent. */
  abstract boolean needsBusinessId();

  /** Mints the key for an intent; {@code businessId} may be null unless {@link #needsBusinessId()}. */
  abstract String mint(String scope, String operation, @Nullable String businessId);

  private static String base64(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static final class Random extends KeyStrategy {
    @Override
    boolean needsBusinessId() {
      return false;
    }

    @Override
    String mint(String scope, String operation, @Nullable String businessId) {
      return Keys.random();
    }

    @Override
    public String toString() {
      return "KeyStrategy.random()";
    }
  }

  private static final class Derived extends KeyStrategy {
    private final byte[] secret;

    Derived(byte[] secret) {
      this.secret = secret;
    }

    @Override
    boolean needsBusinessId() {
      return true;
    }

    @Override
    String mint(String scope, String operation, @Nullable String businessId) {
      try {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        // Length prefixes keep ("ab","c") and ("a","bc") apart.
        for (String part : new String[] {scope, operation, businessId}) {
          byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
          mac.update(new byte[] {
              (byte) (bytes.length >>> 24), (byte) (bytes.length >>> 16),
              (byte) (bytes.length >>> 8), (byte) bytes.length});
          mac.update(bytes);
        }
        return base64(mac.doFinal());
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("HmacSHA256 is required by every Java platform", e);
      }
    }

    @Override
    public String toString() {
      return "KeyStrategy.derived(<secret>)";
    }
  }

  private static final class Existing extends KeyStrategy {
    private final String key;

    Existing(String key) {
      this.key = key;
    }

    @Override
    boolean needsBusinessId() {
      return false;
    }

    @Override
    String mint(String scope, String operation, @Nullable String businessId) {
      return key;
    }

    @Override
    public String toString() {
      return "KeyStrategy.existing(<key>)";
    }
  }
}
