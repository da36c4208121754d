package dev.oncely.client;

import java.util.Objects;

/**
 * The identity of one intent record: the idempotency key <em>within</em> a scope (tenant or
 * account) and an operation name. Two ids with the same key string but another scope or operation
 * are different records, so a key can never collide across accounts or operations.
 *
 * <p>{@link #toString()} never prints the key; it prints a short hash of it.
 */
public final class IntentId {
  /** Longest accepted scope, operation or key, in characters. */
  public static final int MAX_PART_LENGTH = 255;

  private final String scope;
  private final String operation;
  private final String key;
  /** {@link #safeKey()}, computed on first use (a benign race: every thread computes the same). */
  private String safeKey;

  private IntentId(String scope, String operation, String key) {
    this.scope = Identifiers.checkText("scope", scope);
    this.operation = Identifiers.checkText("operation", operation);
    this.key = Identifiers.checkKey("key", key);
  }

  /**
   * Returns the id of the record for {@code key} in {@code scope} and {@code operation}.
   *
   * @throws NullPointerException if any argument is null
   * @throws IllegalArgumentException if any argument is blank, longer than {@link #MAX_PART_LENGTH},
   *     contains a control character or a lone surrogate, or the key holds a character outside
   *     visible ASCII ({@link Identifiers})
   */
  public static IntentId of(String scope, String operation, String key) {
    return new IntentId(scope, operation, key);
  }

  /** The tenant, account or actor the key belongs to. */
  public String scope() {
    return scope;
  }

  /** The business operation, for example {@code "create-payment"}. */
  public String operation() {
    return operation;
  }

  /** The idempotency key itself. Secret-ish: never log it, use {@link #safeKey()}. */
  public String key() {
    return key;
  }

  /** A short, stable, non-reversible label for the key, safe for logs and error messages. */
  public String safeKey() {
    String hash = safeKey;
    if (hash == null) {
      hash = KeyHashes.shortHash(key);
      safeKey = hash;
    }
    return hash;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IntentId other
        && scope.equals(other.scope)
        && operation.equals(other.operation)
        && key.equals(other.key);
  }

  @Override
  public int hashCode() {
    // The value of Objects.hash(scope, operation, key), without its varargs array.
    return 31 * (31 * (31 + scope.hashCode()) + operation.hashCode()) + key.hashCode();
  }

  @Override
  public String toString() {
    return scope + "/" + operation + "/" + safeKey();
  }
}
