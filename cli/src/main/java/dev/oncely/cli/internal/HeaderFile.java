package dev.oncely.cli.internal;

import dev.oncely.client.HeaderProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import okhttp3.HttpUrl;

/**
 * Credentials for a drive from the CLI, read from a file of {@code Name: value} lines (blank lines
 * and {@code #} comments ignored) so they never appear on the command line. They are sent only to
 * the origin of the record's URL and are never stored or printed.
 */
final class HeaderFile {
  private HeaderFile() {}

  static HeaderProvider forOrigin(Path file, String recordUrl) {
    Map<String, String> headers = read(file);
    HttpUrl origin = HttpUrl.parse(recordUrl);
    return (id, url) -> sameOrigin(origin, HttpUrl.parse(url)) ? headers : Map.of();
  }

  private static Map<String, String> read(Path file) {
    Map<String, String> headers = new LinkedHashMap<>();
    int n = 0;
    try {
      for (String line : Files.readAllLines(file)) {
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
        headers.put(text.substring(0, colon).strip(), text.substring(colon + 1).strip());
      }
    } catch (IOException e) {
      throw CliException.failure("cannot read --header-file " + file + ": " + e.getMessage(), e);
    }
    return Map.copyOf(headers);
  }

  private static boolean sameOrigin(HttpUrl a, HttpUrl b) {
    return a != null && b != null && a.scheme().equals(b.scheme())
        && a.host().equals(b.host()) && a.port() == b.port();
  }
}
