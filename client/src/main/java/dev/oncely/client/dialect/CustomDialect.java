package dev.oncely.client.dialect;

import dev.oncely.client.StoredResponse;
import dev.oncely.client.internal.Durations;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Dialect} assembled from settings: key header, quoting, in-progress and mismatch statuses,
 * an optional classifier consulted first, a replay marker header and the server's key retention.
 * Immutable and thread-safe. Built by {@link Dialects#custom(String)}.
 *
 * <p>Classification order: the classifier (if it returns a verdict); then a replayed {@code 5xx} is
 * {@link Verdict#RECONCILE}; then the in-progress and mismatch statuses; then {@link
 * Dialects#standardVerdict(int)}.
 */
public final class CustomDialect implements Dialect {
  private final String name;
  private final String keyHeader;
  private final boolean quoteKey;
  private final String replayHeader;
  private final Set<Integer> inProgress;
  private final Set<Integer> mismatch;
  private final ResponseClassifier classifier;
  private final Duration keyRetention;
  private final Set<Integer> trustedRefusals;
  private final StatusUrlResolver statusUrlResolver;
  private final StatusInterpreter statusInterpreter;
  private final int maxBlindResends;

  private CustomDialect(Builder b) {
    this.name = b.name;
    this.keyHeader = b.keyHeader;
    this.quoteKey = b.quoteKey;
    this.replayHeader = b.replayHeader;
    this.inProgress = Collections.unmodifiableSet(new LinkedHashSet<>(b.inProgress));
    this.mismatch = Collections.unmodifiableSet(new LinkedHashSet<>(b.mismatch));
    this.classifier = b.classifier;
    this.keyRetention = b.keyRetention;
    this.trustedRefusals = Set.copyOf(b.trustedRefusals);
    this.statusUrlResolver = b.statusUrlResolver;
    this.statusInterpreter = b.statusInterpreter;
    this.maxBlindResends = b.maxBlindResends;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String keyHeader() {
    return keyHeader;
  }

  @Override
  public String formatKey(String key) {
    if (!quoteKey) {
      return key;
    }
    return '"' + key.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  @Override
  public @Nullable String parseKey(@Nullable String headerValue) {
    if (headerValue == null) {
      return null;
    }
    String value = headerValue.trim();
    if (!quoteKey) {
      return value.isEmpty() ? null : value;
    }
    if (value.length() < 3 || value.charAt(0) != '"' || value.charAt(value.length() - 1) != '"') {
      return null;
    }
    StringBuilder key = new StringBuilder();
    for (int i = 1; i < value.length() - 1; i++) {
      char c = value.charAt(i);
      if (c == '\\' && i + 1 < value.length() - 1) {
        c = value.charAt(++i);
      } else if (c == '"' || c == '\\') {
        return null;
      }
      key.append(c);
    }
    return key.toString();
  }

  @Override
  public Verdict classify(StoredResponse response) {
    Objects.requireNonNull(response, "response");
    if (classifier != null) {
      Verdict verdict = classifier.classify(response);
      if (verdict != null) {
        return verdict;
      }
    }
    int status = response.status();
    if (status >= 500 && isReplay(response)) {
      return Verdict.RECONCILE;
    }
    if (inProgress.contains(status)) {
      return Verdict.IN_PROGRESS;
    }
    if (mismatch.contains(status)) {
      return Verdict.PAYLOAD_MISMATCH;
    }
    return Dialects.standardVerdict(status);
  }

  @Override
  public boolean isReplay(StoredResponse response) {
    if (replayHeader == null) {
      return false;
    }
    String value = response.header(replayHeader);
    if (value == null) {
      return false;
    }
    String v = value.trim().toLowerCase(Locale.ROOT);
    return v.equals("true") || v.equals("1") || v.equals("?1");
  }

  @Override
  public Duration keyRetention() {
    return keyRetention;
  }

  @Override
  public boolean trustsRefusalAfterDelivery(int status) {
    return trustedRefusals.contains(status);
  }

  @Override
  public StatusUrlResolver statusUrlResolver() {
    return statusUrlResolver;
  }

  @Override
  public StatusInterpreter statusInterpreter() {
    return statusInterpreter;
  }

  @Override
  public int maxBlindResends() {
    return maxBlindResends;
  }

  @Override
  public String toString() {
    return "Dialect{" + name + ", keyHeader=" + keyHeader + ", quoted=" + quoteKey + "}";
  }

  /** Builds {@link CustomDialect}s. Not thread-safe; each setter validates its argument. */
  public static final class Builder {
    private final String name;
    private String keyHeader = "Idempotency-Key";
    private boolean quoteKey;
    private String replayHeader;
    private final Set<Integer> inProgress = new LinkedHashSet<>();
    private final Set<Integer> mismatch = new LinkedHashSet<>();
    private ResponseClassifier classifier;
    private Duration keyRetention = Dialects.defaultRetention();
    private Set<Integer> trustedRefusals = Dialects.TRUSTED_REFUSALS;
    private StatusUrlResolver statusUrlResolver = StatusUrlResolver.NONE;
    private StatusInterpreter statusInterpreter = StatusInterpreter.ANY_2XX_IS_DONE;
    private int maxBlindResends = Dialects.DEFAULT_MAX_BLIND_RESENDS;

    Builder(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("dialect name must not be blank");
      }
      this.name = name;
    }

    /**
     * Sets the request header that carries the key (default {@code Idempotency-Key}).
     *
     * @throws IllegalArgumentException if it is not a valid header name
     */
    public Builder keyHeader(String keyHeader) {
      this.keyHeader = headerName("keyHeader", keyHeader);
      return this;
    }

    /** Whether the key is written as a quoted Structured Field string (default false). */
    public Builder quoteKey(boolean quoteKey) {
      this.quoteKey = quoteKey;
      return this;
    }

    /**
     * Sets the response header whose value {@code true} (or {@code 1}, {@code ?1}) marks a replay.
     *
     * @throws IllegalArgumentException if it is not a valid header name
     */
    public Builder replayHeader(String replayHeader) {
      this.replayHeader = headerName("replayHeader", replayHeader);
      return this;
    }

    /**
     * Adds a status meaning "a request with this key is still in progress".
     *
     * @throws IllegalArgumentException if it is not a 4xx status or is already a mismatch status
     */
    public Builder inProgressStatus(int status) {
      checkClientError("inProgressStatus", status, mismatch);
      inProgress.add(status);
      return this;
    }

    /**
     * Adds a status meaning "this key was used with another payload" (for example 422, 409, 417).
     *
     * @throws IllegalArgumentException if it is not a 4xx status or is already an in-progress status
     */
    public Builder mismatchStatus(int status) {
      checkClientError("mismatchStatus", status, inProgress);
      mismatch.add(status);
      return this;
    }

    /**
     * Sets a classifier consulted before every other rule; it returns null to fall through.
     *
     * @throws IllegalArgumentException if {@code classifier} is null
     */
    public Builder classifier(ResponseClassifier classifier) {
      if (classifier == null) {
        throw new IllegalArgumentException("classifier must not be null");
      }
      this.classifier = classifier;
      return this;
    }

    /**
     * Sets how long the server keeps keys (default {@link Dialects#DEFAULT_KEY_RETENTION}, an
     * assumption on the short side; take the number from the server's documentation).
     *
     * @throws IllegalArgumentException if it is null, zero or negative
     */
    public Builder keyRetention(Duration keyRetention) {
      this.keyRetention = Durations.positive("keyRetention", keyRetention);
      return this;
    }

    /**
     * Sets the {@code 4xx} statuses trusted as final refusals after an earlier attempt may have
     * been delivered, without a replay marker (default none, {@link Dialects#TRUSTED_REFUSALS}).
     * List a status only if your server answers it from its idempotency record, never from a
     * layer in front of it: a wrong entry turns a charged payment into "rejected".
     *
     * @throws IllegalArgumentException if a status is not 4xx, or is {@code 401}, {@code 403},
     *     {@code 404}, {@code 405}, {@code 407}, {@code 410} or {@code 421} (auth and routing
     *     answers never prove that an earlier attempt had no effect)
     */
    public Builder trustedRefusals(int... statuses) {
      Set<Integer> chosen = new LinkedHashSet<>();
      for (int status : statuses) {
        if (status < 400 || status > 499) {
          throw new IllegalArgumentException("trustedRefusals must be 4xx statuses, was " + status);
        }
        if (Set.of(401, 403, 404, 405, 407, 410, 421).contains(status)) {
          throw new IllegalArgumentException("trustedRefusals cannot hold " + status + ": auth and"
              + " routing answers do not prove an earlier attempt had no effect");
        }
        chosen.add(status);
      }
      this.trustedRefusals = chosen;
      return this;
    }

    /**
     * Sets how a {@code 202} without {@code Location} names its status URL in the body, for
     * example {@link StatusUrlResolver#jsonPointer} (default {@link StatusUrlResolver#NONE}).
     *
     * @throws IllegalArgumentException if it is null
     */
    public Builder statusUrlResolver(StatusUrlResolver resolver) {
      if (resolver == null) {
        throw new IllegalArgumentException("statusUrlResolver must not be null");
      }
      this.statusUrlResolver = resolver;
      return this;
    }

    /**
     * Sets how {@code 2xx} answers of a status URL are read (default {@link
     * StatusInterpreter#ANY_2XX_IS_DONE}).
     *
     * @throws IllegalArgumentException if it is null
     */
    public Builder statusInterpreter(StatusInterpreter interpreter) {
      if (interpreter == null) {
        throw new IllegalArgumentException("statusInterpreter must not be null");
      }
      this.statusInterpreter = interpreter;
      return this;
    }

    /**
     * Sets how often one drive resends after a {@code 202} without a status URL (default
     * {@value Dialects#DEFAULT_MAX_BLIND_RESENDS}).
     *
     * @throws IllegalArgumentException if it is negative
     */
    public Builder maxBlindResends(int maxBlindResends) {
      if (maxBlindResends < 0) {
        throw new IllegalArgumentException("maxBlindResends must be >= 0, was " + maxBlindResends);
      }
      this.maxBlindResends = maxBlindResends;
      return this;
    }

    /** Returns the dialect. */
    public CustomDialect build() {
      return new CustomDialect(this);
    }

    private static String headerName(String setting, String name) {
      if (!dev.oncely.client.Identifiers.isToken(name)) {
        throw new IllegalArgumentException(setting + " must be a header name, was '" + name + "'");
      }
      return name;
    }

    private static void checkClientError(String setting, int status, Set<Integer> other) {
      if (status < 400 || status > 499) {
        throw new IllegalArgumentException(setting + " must be a 4xx status, was " + status);
      }
      if (other.contains(status)) {
        throw new IllegalArgumentException(setting + " " + status
            + " is already used for the other meaning");
      }
    }
  }
}
