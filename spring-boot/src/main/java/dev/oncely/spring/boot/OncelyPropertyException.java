package dev.oncely.spring.boot;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An {@code oncely.*} property has a value Oncely refuses, found while the starter turned the
 * properties into the client's settings: the message names the property, never the builder
 * setting behind it ({@code oncely.retry.max-attempts must be >= 1, was 0}). The starter's failure
 * analyzer reports it as "APPLICATION FAILED TO START" with the property and what to change; the
 * refusal of the builder, if any, is the cause.
 */
public class OncelyPropertyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String property;
  private final @Nullable String value;

  /**
   * Creates the exception for {@code property} holding {@code value}.
   *
   * @param property the full property name, e.g. {@code oncely.retry.max-attempts}
   * @param value the value as bound (its {@code toString()}), or null if unset
   * @param reason why it is refused, in words that follow the property name ({@code must be >= 1,
   *     was 0})
   * @param cause the builder's refusal, or null
   * @throws NullPointerException if {@code property} or {@code reason} is null
   */
  public OncelyPropertyException(String property, @Nullable Object value, String reason,
      @Nullable Throwable cause) {
    super(Objects.requireNonNull(property, "property") + " "
        + Objects.requireNonNull(reason, "reason"), cause);
    this.property = property;
    this.value = value == null ? null : value.toString();
  }

  /**
   * The refused property's full name.
   *
   * @return e.g. {@code oncely.retry.max-attempts}
   */
  public String property() {
    return property;
  }

  /**
   * The refused value as bound.
   *
   * @return its text, or null if the property is unset
   */
  public @Nullable String value() {
    return value;
  }
}
