package dev.oncely.cli.internal;

import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import java.util.Locale;

/** The dialects a command line can name: {@code ietf}, {@code stripe}, {@code paypal}. */
public final class DialectNames {
  private DialectNames() {}

  /**
   * The dialect called {@code name}, any case.
   *
   * @throws CliException naming the value and the known names otherwise
   */
  public static Dialect parse(String option, String name) {
    switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "ietf":
        return Dialects.ietf();
      case "stripe":
        return Dialects.stripe();
      case "paypal":
        return Dialects.paypal();
      default:
        throw CliException.usage(option + " must be ietf, stripe or paypal, was '" + name + "'");
    }
  }
}
