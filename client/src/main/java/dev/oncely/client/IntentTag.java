package dev.oncely.client;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The identity of an intent sent through plain OkHttp (or Retrofit): attach it to the request
 * with {@code new Request.Builder().tag(IntentTag.class, tag)}, or with a Retrofit {@code @Tag
 * IntentTag tag} method parameter, and the {@link IdempotencyInterceptor} (with a store) treats the
 * call as a durable intent: the record (key, exact bytes, fingerprint, the key's wire form) is
 * stored before the first byte; a call re-issued after a restart with the same business id gets
 * the same key; a changed body under it fails with {@link IntentIOException} before any I/O; a
 * finished intent is answered from the store.
 *
 * <p>Immutable and thread-safe. Built by {@link #builder()}; required: operation and scope.
 * Default key strategy: {@link KeyStrategy#random()} (a business id then finds the key in the
 * store); {@link KeyStrategy#derived(byte[])} re-creates the key even without the store.
 *
 * <p>The body is fingerprinted exactly as {@link IntentSpec} does it: a JSON body (its media type
 * names JSON) must be well-formed and loses its {@linkplain Builder#volatileFields volatile fields}
 * before hashing; any other body is hashed with its media type and exact bytes. A body with a
 * {@code Content-Encoding} the SDK decodes (gzip, deflate) is fingerprinted by its decoded
 * payload, one in another coding by its exact bytes, and is stored and resent as sent, header
 * included.
 */
public final class IntentTag {
  private final String operation;
  private final String scope;
  private final @Nullable String businessId;
  private final KeyStrategy keyStrategy;
  private final Set<String> volatileFields;
  private final @Nullable RetryPolicy retryPolicy;

  private IntentTag(Builder b) {
    this.operation = b.operation;
    this.scope = b.scope;
    this.businessId = b.businessId;
    this.keyStrategy = b.keyStrategy;
    this.volatileFields = b.volatileFields.isEmpty() ? Collections.emptySet()
        : Collections.unmodifiableSet(new LinkedHashSet<>(b.volatileFields));
    this.retryPolicy = b.retryPolicy;
  }

  /** Returns a builder with the random key strategy and no business id. */
  public static Builder builder() {
    return new Builder();
  }

  /** The business operation, for example {@code "create-payment"}. */
  public String operation() {
    return operation;
  }

  /** The tenant, account or actor the key is scoped to. */
  public String scope() {
    return scope;
  }

  /** The stable business id (order id, event id), or null. */
  public @Nullable String businessId() {
    return businessId;
  }

  /** How a new key is minted. */
  public KeyStrategy keyStrategy() {
    return keyStrategy;
  }

  /** The JSON fields left out of the fingerprint; unmodifiable, empty by default. */
  public Set<String> volatileFields() {
    return volatileFields;
  }

  /**
   * This intent's own retry policy, or null when the interceptor's applies. Stored with the record
   * when the intent is first sent, so a re-issued call or a resume drives it with the same policy.
   */
  public @Nullable RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  /** Mints a key for this intent (used when neither the request nor the store has one). */
  String mintKey() {
    return keyStrategy.mint(scope, operation, businessId);
  }

  /** Describes the tag without its business id. */
  @Override
  public String toString() {
    return "IntentTag{" + scope + "/" + operation + (businessId != null ? ", business id set" : "")
        + "}";
  }

  /** Builds {@link IntentTag}s. Not thread-safe. */
  public static final class Builder {
    private String operation;
    private String scope;
    private @Nullable String businessId;
    private KeyStrategy keyStrategy = KeyStrategy.random();
    private final Set<String> volatileFields = new LinkedHashSet<>();
    private @Nullable RetryPolicy retryPolicy;

    private Builder() {}

    /**
     * Gives this intent its own retry policy, as {@link IntentSpec.Builder#retryPolicy} does.
     * Default: the interceptor's policy.
     *
     * @throws InvalidIntentException if {@code retryPolicy} is null
     */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      if (retryPolicy == null) {
        throw new InvalidIntentException("retryPolicy", "must not be null");
      }
      this.retryPolicy = retryPolicy;
      return this;
    }

    /**
     * Sets the operation (required).
     *
     * @throws InvalidIntentException if it is blank, longer than 255 characters or has control
     *     characters
     */
    public Builder operation(String operation) {
      this.operation = IntentSpec.Builder.checkPart("operation", operation);
      return this;
    }

    /**
     * Sets the scope (required).
     *
     * @throws InvalidIntentException if it is blank, too long or has control characters
     */
    public Builder scope(String scope) {
      this.scope = IntentSpec.Builder.checkPart("scope", scope);
      return this;
    }

    /**
     * Sets the stable business id: within one scope and operation it belongs to one intent.
     *
     * @throws InvalidIntentException if it is blank, too long or has control characters
     */
    public Builder businessId(String businessId) {
      this.businessId = IntentSpec.Builder.checkPart("businessId", businessId);
      return this;
    }

    /**
     * Sets how a new key is minted (default random).
     *
     * @throws InvalidIntentException if it is null
     */
    public Builder keyStrategy(KeyStrategy keyStrategy) {
      if (keyStrategy == null) {
        throw new InvalidIntentException("keyStrategy", "must not be null");
      }
      this.keyStrategy = keyStrategy;
      return this;
    }

    /**
     * Names JSON fields left out of the fingerprint (timestamps, trace ids), as {@link
     * IntentSpec.Builder#volatileFields} does: top-level member names, or JSON Pointers such as
     * {@code /meta/sentAt}. A call whose body is not JSON then fails before any I/O.
     *
     * @throws NullPointerException if {@code fields} is null
     * @throws InvalidIntentException if a name is null or empty
     */
    public Builder volatileFields(String... fields) {
      for (String f : Objects.requireNonNull(fields, "fields")) {
        volatileFields.add(IntentSpec.Builder.checkVolatileField(f));
      }
      return this;
    }

    /**
     * Returns the tag.
     *
     * @throws InvalidIntentException if operation or scope is missing, or the key strategy is
     *     derived and there is no business id
     */
    public IntentTag build() {
      if (operation == null || scope == null) {
        throw new InvalidIntentException(operation == null ? "operation" : "scope", "is required");
      }
      if (keyStrategy.needsBusinessId() && businessId == null) {
        throw new InvalidIntentException("businessId", "is required by KeyStrategy.derived");
      }
      return new IntentTag(this);
    }
  }
}
