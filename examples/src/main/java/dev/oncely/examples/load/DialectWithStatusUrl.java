package dev.oncely.examples.load;

import dev.oncely.client.StoredResponse;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.StatusInterpreter;
import dev.oncely.client.dialect.StatusUrlResolver;
import dev.oncely.client.dialect.Verdict;
import java.time.Duration;
import java.util.Objects;

/**
 * A built-in {@link Dialect} with another {@link StatusUrlResolver}: every other answer is the
 * base dialect's. The built-in dialects cannot be copied into a builder, so this one delegates
 * each method of {@link Dialect}, the default ones included (a test checks that none is missed).
 * Immutable and thread-safe.
 */
final class DialectWithStatusUrl implements Dialect {
  private final Dialect base;
  private final StatusUrlResolver resolver;

  DialectWithStatusUrl(Dialect base, StatusUrlResolver resolver) {
    this.base = Objects.requireNonNull(base, "base");
    this.resolver = Objects.requireNonNull(resolver, "resolver");
  }

  /** {@code base} itself when {@code resolver} is {@link StatusUrlResolver#NONE}. */
  static Dialect of(Dialect base, StatusUrlResolver resolver) {
    return resolver == StatusUrlResolver.NONE ? base : new DialectWithStatusUrl(base, resolver);
  }

  @Override
  public String name() {
    return base.name();
  }

  @Override
  public String keyHeader() {
    return base.keyHeader();
  }

  @Override
  public String formatKey(String key) {
    return base.formatKey(key);
  }

  @Override
  public String parseKey(String headerValue) {
    return base.parseKey(headerValue);
  }

  @Override
  public Verdict classify(StoredResponse response) {
    return base.classify(response);
  }

  @Override
  public boolean isReplay(StoredResponse response) {
    return base.isReplay(response);
  }

  @Override
  public Duration keyRetention() {
    return base.keyRetention();
  }

  @Override
  public boolean trustsRefusalAfterDelivery(int status) {
    return base.trustsRefusalAfterDelivery(status);
  }

  @Override
  public StatusUrlResolver statusUrlResolver() {
    return resolver;
  }

  @Override
  public StatusInterpreter statusInterpreter() {
    return base.statusInterpreter();
  }

  @Override
  public int maxBlindResends() {
    return base.maxBlindResends();
  }

  @Override
  public String toString() {
    return base + " with the status URL read from a 202's body";
  }
}
