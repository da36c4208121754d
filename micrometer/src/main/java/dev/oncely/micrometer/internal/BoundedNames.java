package dev.oncely.micrometer.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps a tag's distinct values bounded: the first {@code limit} names pass through, later new
 * names become {@link #OTHER}. Guards against operation names built from URL paths with ids in
 * them (the interceptor's default), which would otherwise grow the registry without end.
 */
public final class BoundedNames {
  /** What a name beyond the limit is reported as. */
  public static final String OTHER = "other";

  private final int limit;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();

  /**
   * Allows {@code limit} distinct names.
   *
   * @param limit how many distinct names pass through unchanged
   * @throws IllegalArgumentException if {@code limit} is below 1
   */
  public BoundedNames(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    this.limit = limit;
  }

  /**
   * Returns {@code name} if it was seen before or there is room for it, else {@link #OTHER}.
   *
   * @param name the tag value to admit
   * @return {@code name} or {@link #OTHER}
   */
  public String admit(String name) {
    if (seen.contains(name)) {
      return name;
    }
    // Racing threads may admit a few names past the limit; the bound stays small and fixed.
    if (seen.size() >= limit) {
      return OTHER;
    }
    seen.add(name);
    return name;
  }
}
