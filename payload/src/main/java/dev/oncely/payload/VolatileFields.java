package dev.oncely.payload;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The members a fingerprint leaves out, as a matcher that follows a streaming parse. A field is a
 * top-level member name, or a JSON Pointer (RFC 6901, starting with {@code /}) whose last segment
 * names the member and whose earlier segments lead to the object holding it; a segment matches an
 * object member of that name or, when it is a canonical decimal, the array element at that index.
 * Each instance is the set of fields still possible at one position in the document.
 */
final class VolatileFields {
  static final VolatileFields NONE = new VolatileFields(List.of(), 0);

  /** One field: the path to the object holding it, and its member name. */
  private record Field(String[] parent, String name) {}

  private final List<Field> fields;
  private final int depth;

  private VolatileFields(List<Field> fields, int depth) {
    this.fields = fields;
    this.depth = depth;
  }

  /**
   * The matcher at the document root.
   *
   * @param names top-level member names or JSON Pointers
   */
  static VolatileFields compile(Collection<String> names) {
    if (names.isEmpty()) {
      return NONE;
    }
    List<Field> fields = new ArrayList<>(names.size());
    for (String field : names) {
      if (!field.startsWith("/")) {
        fields.add(new Field(new String[0], field));
        continue;
      }
      int cut = field.lastIndexOf('/');
      String[] parent = cut == 0 ? new String[0] : field.substring(1, cut).split("/", -1);
      for (int i = 0; i < parent.length; i++) {
        parent[i] = unescape(parent[i]);
      }
      String last = field.substring(cut + 1);
      fields.add(new Field(parent, unescape(last)));
    }
    return new VolatileFields(List.copyOf(fields), 0);
  }

  /** Whether the member {@code name} of the object at this position is left out. */
  boolean removes(String name) {
    for (Field f : fields) {
      if (f.parent.length == depth && f.name.equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** The matcher inside the member {@code name} of the object at this position. */
  VolatileFields member(String name) {
    return descend(name, -1);
  }

  /** The matcher inside the element {@code index} of the array at this position. */
  VolatileFields element(int index) {
    return descend(null, index);
  }

  private VolatileFields descend(@Nullable String name, int index) {
    if (fields.isEmpty()) {
      return NONE;
    }
    @Nullable List<Field> next = null;
    for (Field f : fields) {
      if (f.parent.length > depth && matches(f.parent[depth], name, index)) {
        if (next == null) {
          next = new ArrayList<>(fields.size());
        }
        next.add(f);
      }
    }
    return next == null ? NONE : new VolatileFields(next, depth + 1);
  }

  private static boolean matches(String segment, @Nullable String name, int index) {
    if (name != null) {
      return segment.equals(name);
    }
    return segment.equals(Integer.toString(index));
  }

  /** RFC 6901 unescaping, left to right: {@code ~0} is {@code ~}, {@code ~1} is {@code /}. */
  private static String unescape(String segment) {
    if (segment.indexOf('~') < 0) {
      return segment;
    }
    StringBuilder out = new StringBuilder(segment.length());
    for (int i = 0; i < segment.length(); i++) {
      char c = segment.charAt(i);
      if (c == '~' && i + 1 < segment.length()) {
        char next = segment.charAt(i + 1);
        if (next == '0' || next == '1') {
          out.append(next == '0' ? '~' : '/');
          i++;
          continue;
        }
      }
      out.append(c);
    }
    return out.toString();
  }
}
