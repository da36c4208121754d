package dev.oncely.spring.boot;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Turns {@code oncely.*} properties into builder settings so that every refusal names the
 * property: a setter's {@link IllegalArgumentException} ({@code maxAttempts must be >= 1, was 0})
 * becomes an {@link OncelyPropertyException} ({@code oncely.retry.max-attempts must be >= 1, was
 * 0}).
 */
final class FromProperties {
  private FromProperties() {}

  /**
   * Hands {@code value} of {@code property} to {@code setter}, the builder's {@code setting}.
   *
   * @throws OncelyPropertyException if the setter refuses the value
   */
  static <T> void set(String property, String setting, T value, Consumer<T> setter) {
    try {
      setter.accept(value);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new OncelyPropertyException(property, value, reason(setting, e), e);
    }
  }

  /**
   * Builds what the properties set, naming {@code properties} (the ones the build checks against
   * each other) if the build refuses.
   *
   * @throws OncelyPropertyException if the build refuses the combination
   */
  static <T> T build(String properties, Supplier<T> build) {
    try {
      return build.get();
    } catch (IllegalArgumentException e) {
      throw new OncelyPropertyException(properties, null, "are refused together: "
          + e.getMessage(), e);
    }
  }

  /** The builder's message without its setting name: what follows the property name. */
  private static String reason(String setting, RuntimeException e) {
    String message = e.getMessage();
    if (message == null) {
      return "is refused (" + e.getClass().getSimpleName() + ")";
    }
    if (message.startsWith(setting + " ")) {
      return message.substring(setting.length() + 1);
    }
    return "is refused: " + message;
  }
}
