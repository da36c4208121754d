package dev.oncely.payload;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The framing of a {@code multipart/*} body (RFC 2046, section 5.1.1), read so that a fingerprint
 * can leave it out: the boundary is chosen afresh by whoever builds the body (OkHttp's {@code
 * MultipartBody} and Spring's form converter draw a random one each time), so it carries no
 * meaning, while each part's headers and bytes, in order, are the payload.
 *
 * <p>Read strictly: a delimiter is {@code --boundary} at the start of the body or after a CRLF,
 * followed by optional spaces or tabs and a CRLF; the close delimiter is {@code --boundary--};
 * the preamble before the first delimiter and the epilogue after the close delimiter are ignored.
 * A part is its header lines, an empty line and its content; a part without headers starts with
 * the empty line. Header bytes are kept exactly as written. Bytes that do not follow this framing
 * (no delimiter, no close delimiter, a part whose headers never end, no part at all) are not read
 * as multipart, and {@link #parse} says so with null. A part that is itself multipart is one part
 * like any other: its own framing stays in its bytes.
 */
final class MultipartParts {
  /**
   * A part as ranges of the body's bytes: its header lines without the CRLF that ends the last
   * one, and its content without the CRLF that belongs to the next delimiter.
   */
  record Part(int headersFrom, int headersTo, int contentFrom, int contentTo) {}

  /**
   * The framing a media type declares: its boundary, and the media type without it (lower case,
   * other parameters in their order, values unquoted).
   */
  record Framing(String boundary, String typeWithoutBoundary) {}

  private static final byte CR = '\r';
  private static final byte LF = '\n';

  private MultipartParts() {}

  /**
   * The framing of {@code mediaType}, or null when it is not {@code multipart/*}, declares no
   * boundary or one twice, or its parameters do not parse.
   */
  static @Nullable Framing framingOf(@Nullable String mediaType) {
    if (mediaType == null) {
      return null;
    }
    String @Nullable [] segments = splitParameters(mediaType);
    if (segments == null) {
      return null;
    }
    String essence = segments[0].trim().toLowerCase(Locale.ROOT);
    if (!essence.startsWith("multipart/")) {
      return null;
    }
    StringBuilder rest = new StringBuilder(essence);
    @Nullable String boundary = null;
    for (int i = 1; i < segments.length; i++) {
      String segment = segments[i].trim();
      if (segment.isEmpty()) {
        continue;
      }
      int eq = segment.indexOf('=');
      if (eq <= 0) {
        return null;
      }
      String name = segment.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      @Nullable String value = unquote(segment.substring(eq + 1).trim());
      if (value == null) {
        return null;
      }
      if (!name.equals("boundary")) {
        rest.append(';').append(name).append('=').append(value.toLowerCase(Locale.ROOT));
      } else if (boundary != null) {
        return null;
      } else {
        boundary = value;
      }
    }
    return boundary == null || !printableAscii(boundary) ? null
        : new Framing(boundary, rest.toString());
  }

  /**
   * The parts of {@code body} framed by {@code boundary}, in order; null when the bytes do not
   * follow the framing.
   */
  static @Nullable List<Part> parse(byte[] body, String boundary) {
    byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
    int at = delimiterAt(body, 0, delimiter, true);
    if (at < 0) {
      return null;
    }
    List<Part> parts = new ArrayList<>();
    int pos = at + delimiter.length;
    while (!isCloseMark(body, pos)) {
      pos = afterLineEnd(body, pos);
      // The CRLF before a delimiter belongs to the delimiter, not to the content it ends.
      int next = pos < 0 ? -1 : delimiterAt(body, pos, delimiter, false);
      @Nullable Part part = next < 0 ? null : part(body, pos, next);
      if (part == null) {
        return null;
      }
      parts.add(part);
      pos = next + 2 + delimiter.length;
    }
    return parts.isEmpty() ? null : parts;
  }

  /**
   * The index of the next delimiter line from {@code from}: of its {@code --boundary}, or, unless
   * {@code first}, of the CRLF before it; -1 if none. Only the first may start the body without a
   * CRLF before it.
   */
  private static int delimiterAt(byte[] body, int from, byte[] delimiter, boolean first) {
    for (int i = first ? from : from + 2; i + delimiter.length <= body.length; i++) {
      boolean lineStart = i == 0 ? first : i >= 2 && body[i - 2] == CR && body[i - 1] == LF;
      if (lineStart && startsWith(body, i, delimiter)) {
        int after = i + delimiter.length;
        if (isCloseMark(body, after) || afterLineEnd(body, after) >= 0) {
          return first ? i : i - 2;
        }
      }
    }
    return -1;
  }

  /** Whether {@code --} follows at {@code pos}: the close delimiter; the epilogue is ignored. */
  private static boolean isCloseMark(byte[] body, int pos) {
    return pos + 2 <= body.length && body[pos] == '-' && body[pos + 1] == '-';
  }

  /** The index after optional spaces or tabs and a CRLF at {@code pos}, or -1. */
  private static int afterLineEnd(byte[] body, int pos) {
    int i = pos;
    while (i < body.length && (body[i] == ' ' || body[i] == '\t')) {
      i++;
    }
    return i + 2 <= body.length && body[i] == CR && body[i + 1] == LF ? i + 2 : -1;
  }

  /** The part in {@code [from, to)}, or null when its header lines never end. */
  private static @Nullable Part part(byte[] body, int from, int to) {
    if (from == to) {
      return new Part(from, from, from, from);
    }
    if (to - from >= 2 && body[from] == CR && body[from + 1] == LF) {
      return new Part(from, from, from + 2, to);
    }
    for (int i = from; i + 4 <= to; i++) {
      if (body[i] == CR && body[i + 1] == LF && body[i + 2] == CR && body[i + 3] == LF) {
        return new Part(from, i, i + 4, to);
      }
    }
    // Header lines and no content: the last line's CRLF ends the part.
    if (body[to - 2] == CR && body[to - 1] == LF) {
      return new Part(from, to - 2, to, to);
    }
    return null;
  }

  /** Whether {@code boundary} is non-empty printable ASCII, as RFC 2046 requires. */
  private static boolean printableAscii(String boundary) {
    return !boundary.isEmpty() && boundary.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
  }

  private static boolean startsWith(byte[] body, int at, byte[] prefix) {
    if (at + prefix.length > body.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (body[at + i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  /** The type and its parameter segments, split at semicolons outside quotes; null if unclosed. */
  private static String @Nullable [] splitParameters(String mediaType) {
    List<String> segments = new ArrayList<>();
    boolean quoted = false;
    int start = 0;
    for (int i = 0; i < mediaType.length(); i++) {
      char c = mediaType.charAt(i);
      if (quoted && c == '\\') {
        i++;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ';' && !quoted) {
        segments.add(mediaType.substring(start, i));
        start = i + 1;
      }
    }
    if (quoted) {
      return null;
    }
    segments.add(mediaType.substring(start));
    return segments.toArray(new String[0]);
  }

  /** A token as it is, a quoted string without its quotes and escapes; null if malformed. */
  private static @Nullable String unquote(String value) {
    if (!value.startsWith("\"")) {
      return value.indexOf('"') < 0 ? value : null;
    }
    if (value.length() < 2 || !value.endsWith("\"")) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 1; i < value.length() - 1; i++) {
      char c = value.charAt(i);
      if (c == '\\') {
        i++;
        if (i == value.length() - 1) {
          return null;
        }
        c = value.charAt(i);
      } else if (c == '"') {
        return null;
      }
      out.append(c);
    }
    return out.toString();
  }
}
