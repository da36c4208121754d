package dev.oncely.cli.internal;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Properties;
import org.postgresql.Driver;
import org.postgresql.PGProperty;

/**
 * A PostgreSQL store location as an operator types it: {@code postgresql://[user@]host[:port]/db[?params]}
 * (the libpq URI form, {@code postgres://} too) or a {@code jdbc:postgresql:} URL. A password in
 * it is refused, because a command line shows in {@code ps} and in shell history.
 */
public final class PostgresLocation {
  private static final String JDBC = "jdbc:postgresql:";
  private static final String[] URI_SCHEMES = {"postgresql://", "postgres://"};

  private final String jdbcUrl;
  private final Properties properties;

  private PostgresLocation(String jdbcUrl, Properties properties) {
    this.jdbcUrl = jdbcUrl;
    this.properties = properties;
  }

  /** Whether {@code location} is written as a PostgreSQL URL (reads nothing). */
  public static boolean matches(String location) {
    String lower = location.strip().toLowerCase(Locale.ROOT);
    if (lower.startsWith(JDBC)) {
      return true;
    }
    for (String scheme : URI_SCHEMES) {
      if (lower.startsWith(scheme)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Parses {@code location}.
   *
   * @throws IllegalArgumentException if it is not a PostgreSQL URL or carries a password
   */
  public static PostgresLocation parse(String location) {
    String jdbc = toJdbc(location.strip());
    Properties props = Driver.parseURL(jdbc, new Properties());
    if (props == null) {
      throw new IllegalArgumentException("--store " + redactedForm(location)
          + " is not a PostgreSQL URL (postgresql://host:5432/db or jdbc:postgresql://host:5432/db)");
    }
    for (String name : props.stringPropertyNames()) {
      if (name.equalsIgnoreCase(PGProperty.PASSWORD.getName())
          || name.equalsIgnoreCase(PGProperty.SSL_PASSWORD.getName())) {
        throw secretInLocation();
      }
    }
    return new PostgresLocation(jdbc, props);
  }

  private static String toJdbc(String location) {
    String lower = location.toLowerCase(Locale.ROOT);
    if (lower.startsWith(JDBC)) {
      return location;
    }
    String rest = null;
    for (String scheme : URI_SCHEMES) {
      if (lower.startsWith(scheme)) {
        rest = location.substring(scheme.length());
      }
    }
    if (rest == null) {
      throw new IllegalArgumentException("--store " + redactedForm(location) + " is not a PostgreSQL URL");
    }
    int end = indexOfAny(rest, '/', '?');
    String authority = end < 0 ? rest : rest.substring(0, end);
    String tail = end < 0 ? "/" : rest.substring(end);
    String user = null;
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = authority.substring(0, at);
      if (userInfo.indexOf(':') >= 0) {
        throw secretInLocation();
      }
      user = URLDecoder.decode(userInfo, StandardCharsets.UTF_8);
      authority = authority.substring(at + 1);
    }
    String url = JDBC + "//" + authority + tail;
    if (user != null && !user.isEmpty()) {
      url += (url.indexOf('?') >= 0 ? "&" : "?") + "user="
          + URLEncoder.encode(user, StandardCharsets.UTF_8);
    }
    return url;
  }

  private static int indexOfAny(String s, char a, char b) {
    int i = s.indexOf(a);
    int j = s.indexOf(b);
    return i < 0 ? j : j < 0 ? i : Math.min(i, j);
  }

  private static IllegalArgumentException secretInLocation() {
    return new IllegalArgumentException("--store must not carry a password (a command line shows"
        + " in ps and in shell history): put it in the environment variable PGPASSWORD, or in an"
        + " owner-only file named by --password-file");
  }

  /** The location without anything after '?' or before '@', for messages. */
  private static String redactedForm(String location) {
    String s = location;
    int q = s.indexOf('?');
    if (q >= 0) {
      s = s.substring(0, q) + "?...";
    }
    int scheme = s.indexOf("//");
    int at = s.lastIndexOf('@');
    if (scheme >= 0 && at > scheme) {
      s = s.substring(0, scheme + 2) + "...@" + s.substring(at + 1);
    }
    return s;
  }

  /** The {@code jdbc:postgresql:} URL the driver connects to. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** Whether the location sets {@code property} itself. */
  public boolean has(PGProperty property) {
    return property.isPresent(properties);
  }

  /** The user to log in as, or null for the driver's default. */
  public String user() {
    return PGProperty.USER.getOrDefault(properties);
  }

  /** {@code host:port/database} (and the schema when given), without user or password. */
  public String display() {
    String schema = PGProperty.CURRENT_SCHEMA.getOrDefault(properties);
    return "postgresql://" + PGProperty.PG_HOST.getOrDefault(properties) + ":"
        + PGProperty.PG_PORT.getOrDefault(properties) + "/"
        + PGProperty.PG_DBNAME.getOrDefault(properties)
        + (schema == null ? "" : " (schema " + schema + ")");
  }
}
