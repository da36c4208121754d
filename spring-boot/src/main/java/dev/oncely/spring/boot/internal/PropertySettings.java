package dev.oncely.spring.boot.internal;

import dev.oncely.spring.boot.OncelyPropertyException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Hands property values to a builder so that every refusal names the property ({@code
 * oncely.webhooks.lease must be at least 1 s, was PT0.5S}), never the builder setting behind it.
 */
public final class PropertySettings {
  private PropertySettings() {}

  /**
   * Hands {@code value} of {@code property} to {@code setter}, the builder's {@code setting}.
   *
   * @throws OncelyPropertyException if the setter refuses the value
   */
  public static <T> void set(String property, String setting, T value, Consumer<T> setter) {
    set(property, setting, value, value, setter);
  }

  /**
   * As {@link #set(String, String, Object, Consumer)}, but the refusal shows {@code shown}
   * instead of the value: null for a secret, which must never reach a report or a log.
   */
  public static <T> void set(String property, String setting, T value, @Nullable Object shown,
      Consumer<T> setter) {
    try {
      setter.accept(value);
    } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
      throw refused(property, setting, shown, e);
    }
  }

  /** The refusal of {@code property}, whose builder setting {@code setting} threw {@code e}. */
  public static OncelyPropertyException refused(String property, String setting,
      @Nullable Object shown, RuntimeException e) {
    String message = e.getMessage();
    String reason = message == null ? "is refused (" + e.getClass().getSimpleName() + ")"
        : message.startsWith(setting + " ") ? message.substring(setting.length() + 1)
        : "is refused: " + message;
    return new OncelyPropertyException(property, shown, reason, e);
  }
}
