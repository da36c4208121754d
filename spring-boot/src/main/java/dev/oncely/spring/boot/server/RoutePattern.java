package dev.oncely.spring.boot.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A path pattern in the one language {@code EndpointRoutes} matches: literal segments, {@code
 * {name}} for any one non-empty segment, and an optional rest at the end ({@code /**}, or Spring's
 * {@code /{*name}}) for zero or more segments. Read from Spring MVC's patterns: {@link #parse}
 * refuses what the table would match differently; {@link #approximate} reads any Spring pattern as
 * one that matches at least what it matches, to find overlaps. Immutable.
 */
final class RoutePattern {
  /** A segment that matches any one non-empty segment. */
  private static final String ANY = "{}";

  private final List<String> segments;
  private final boolean rest;

  private RoutePattern(List<String> segments, boolean rest) {
    this.segments = List.copyOf(segments);
    this.rest = rest;
  }

  /**
   * The route pattern of Spring pattern {@code pattern}.
   *
   * @throws IllegalArgumentException naming what the route table cannot express: a regular
   *     expression in a variable, a wildcard or variable inside a segment, {@code **} or {@code
   *     {*name}} before the end
   */
  static RoutePattern parse(String pattern) {
    List<String> out = new ArrayList<>();
    String[] parts = split(pattern);
    for (int i = 0; i < parts.length; i++) {
      String s = parts[i];
      boolean last = i == parts.length - 1;
      if (s.equals("**") || (s.startsWith("{*") && s.endsWith("}"))) {
        if (!last) {
          throw new IllegalArgumentException(s + " is allowed only as the last segment");
        }
        return new RoutePattern(out, true);
      }
      if (s.startsWith("{") && s.endsWith("}") && s.indexOf('{', 1) < 0) {
        if (s.contains(":")) {
          throw new IllegalArgumentException("the variable " + s + " has a regular expression,"
              + " which the route table cannot check");
        }
        out.add(ANY);
      } else if (s.indexOf('{') >= 0 || s.indexOf('}') >= 0 || s.indexOf('*') >= 0
          || s.indexOf('?') >= 0) {
        throw new IllegalArgumentException("the segment " + s + " mixes literal text with a"
            + " wildcard or variable; the route table matches whole segments only");
      } else {
        out.add(s);
      }
    }
    return new RoutePattern(out, false);
  }

  /**
   * Any Spring pattern read as one that matches every path it matches, and maybe more: a segment
   * that {@link #parse} refuses matches any segment, and anything from a {@code **} on matches any
   * rest. For overlap checks against handler methods that are not idempotent endpoints.
   */
  static RoutePattern approximate(String pattern) {
    List<String> out = new ArrayList<>();
    for (String s : split(pattern)) {
      if (s.contains("**") || s.startsWith("{*")) {
        return new RoutePattern(out, true);
      }
      boolean literal = s.indexOf('{') < 0 && s.indexOf('}') < 0 && s.indexOf('*') < 0
          && s.indexOf('?') < 0;
      out.add(literal ? s : ANY);
    }
    return new RoutePattern(out, false);
  }

  private static String[] split(String pattern) {
    Objects.requireNonNull(pattern, "pattern");
    String p = pattern.startsWith("/") ? pattern.substring(1) : pattern;
    return p.isEmpty() ? new String[0] : p.split("/", -1);
  }

  /** This pattern under {@code prefix} (a servlet path such as {@code /api}), or itself. */
  RoutePattern under(@Nullable String prefix) {
    if (prefix == null || prefix.isEmpty() || prefix.equals("/")) {
      return this;
    }
    List<String> all = new ArrayList<>(List.of(split(prefix)));
    all.addAll(segments);
    return new RoutePattern(all, rest);
  }

  /** Whether some path matches both this pattern and {@code other}. */
  boolean overlaps(RoutePattern other) {
    int common = Math.min(segments.size(), other.segments.size());
    if (segments.size() != other.segments.size()) {
      RoutePattern shorter = segments.size() < other.segments.size() ? this : other;
      if (!shorter.rest) {
        return false;
      }
    }
    for (int i = 0; i < common; i++) {
      if (!compatible(segments.get(i), other.segments.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** Whether every path this pattern matches, {@code other} matches too. */
  boolean within(RoutePattern other) {
    if (rest && !other.rest) {
      return false;
    }
    if (other.rest ? segments.size() < other.segments.size()
        : segments.size() != other.segments.size()) {
      return false;
    }
    for (int i = 0; i < other.segments.size(); i++) {
      String mine = segments.get(i);
      String theirs = other.segments.get(i);
      if (!theirs.equals(ANY) && !theirs.equals(mine)) {
        return false;
      }
    }
    return true;
  }

  /** Whether this pattern matches a strict part of what {@code other} matches. */
  boolean strictlyWithin(RoutePattern other) {
    return within(other) && !other.within(this);
  }

  private static boolean compatible(String a, String b) {
    return a.equals(ANY) || b.equals(ANY) || a.equals(b);
  }

  /** The pattern in {@code EndpointRoutes}' syntax. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    int variable = 0;
    for (String s : segments) {
      b.append('/').append(s.equals(ANY) ? "{v" + (variable++) + "}" : s);
    }
    if (rest) {
      b.append("/**");
    }
    return b.length() == 0 ? "/" : b.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RoutePattern p && rest == p.rest && segments.equals(p.segments);
  }

  @Override
  public int hashCode() {
    return Objects.hash(segments, rest);
  }
}
