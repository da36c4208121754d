package dev.oncely.client.internal.pacing;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Parses {@code Retry-After} (RFC 9110 section 10.2.3): delta-seconds or an HTTP-date. A date in the
 * past means "now". Anything else is malformed and must be ignored by the caller.
 */
public final class RetryAfter {
  /** The parse result: {@code delay} is null when the header was absent or malformed. */
  public record Parsed(Duration delay, boolean malformed) {}

  private static final Parsed ABSENT = new Parsed(null, false);
  private static final Parsed MALFORMED = new Parsed(null, true);

  private RetryAfter() {}

  /** Parses {@code value} (null when the header is absent) relative to {@code now}. */
  public static Parsed parse(String value, Instant now) {
    if (value == null) {
      return ABSENT;
    }
    String v = value.trim();
    if (v.isEmpty()) {
      return MALFORMED;
    }
    if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      if (v.length() > 12) {
        return new Parsed(Duration.ofSeconds(999_999_999_999L), false);
      }
      return new Parsed(Duration.ofSeconds(Long.parseLong(v)), false);
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration delay = Duration.between(now, at);
      return new Parsed(delay.isNegative() ? Duration.ZERO : delay, false);
    } catch (DateTimeParseException e) {
      return MALFORMED;
    }
  }
}
