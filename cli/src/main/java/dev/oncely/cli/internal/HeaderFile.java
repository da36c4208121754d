package dev.oncely.cli.internal;

import dev.oncely.client.HeaderProvider;
import dev.oncely.client.Identifiers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import okhttp3.HttpUrl;

/**
 * Credentials for a drive from the CLI, read from a file of {@code Name: value} lines (blank lines
 * and {@code #} comments ignored) so they never appear on the command line. They are sent only to
 * the origin of the record's URL and are never stored or printed. Like a key file, the file must
 * be owner-only; it is read up to {@value #MAX_BYTES} bytes, and names must be HTTP tokens.
 */
final class HeaderFile {
  /** The largest header file read. */
  static final int MAX_BYTES = 64 * 1024;

  private HeaderFile() {}

  static HeaderProvider forOrigin(Path file, String recordUrl) {
    Map<String, String> headers = read(file);
    HttpUrl origin = HttpUrl.parse(recordUrl);
    return (id, url) -> sameOrigin(origin, HttpUrl.parse(url)) ? headers : Map.of();
  }

  private static Map<String, String> read(Path file) {
    Map<String, String> headers = new LinkedHashMap<>();
    int n = 0;
    SecretFiles.checkOwnerOnly(file, "--header-file");
    try {
      for (String line : boundedText(file).split("\\R", -1)) {
        n++;
        String text = line.strip();
        if (text.isEmpty() || text.startsWith("#")) {
          continue;
        }
        int colon = text.indexOf(':');
        if (colon <= 0) {
          throw CliException.usage("--header-file " + file + " line " + n
              + " is not 'Name: value'");
        }
        String name = text.substring(0, colon).strip();
        String value = text.substring(colon + 1).strip();
        if (!Identifiers.isToken(name)) {
          throw CliException.usage("--header-file " + file + " line " + n
              + ": the name is not an HTTP token");
        }
        try {
          new okhttp3.Headers.Builder().add(name, value);
        } catch (IllegalArgumentException e) {
          throw CliException.usage("--header-file " + file + " line " + n
              + ": the value holds characters a header cannot carry");
        }
        headers.put(name, value);
      }
    } catch (IOException e) {
      throw CliException.failure("cannot read --header-file " + file + ": " + e.getMessage(), e);
    }
    return Map.copyOf(headers);
  }

  private static String boundedText(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (bytes.length > MAX_BYTES) {
        throw CliException.usage("--header-file " + file + " is larger than " + MAX_BYTES
            + " bytes; it should hold a few 'Name: value' lines");
      }
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  private static boolean sameOrigin(HttpUrl a, HttpUrl b) {
    return a != null && b != null && a.scheme().equals(b.scheme())
        && a.host().equals(b.host()) && a.port() == b.port();
  }
}
