package dev.oncely.client.property;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The survey mode of the property tests ({@code -Doncely.property.survey=true}): instead of failing
 * at the first broken promise and shrinking it, every case runs and each broken promise is counted
 * with the smallest case that broke it, written to {@code target/property-survey-NAME.txt}. It
 * answers "which promises does this core still break, and how" in one run.
 */
final class Survey {
  static final boolean ON = Boolean.getBoolean("oncely.property.survey");

  private final String name;
  private final Map<String, Integer> counts = new TreeMap<>();
  private final Map<String, Map<String, Integer>> signatures = new TreeMap<>();
  private final Map<String, String> smallest = new TreeMap<>();
  private final Map<String, Integer> smallestSize = new TreeMap<>();
  private int cases;

  Survey(String name) {
    this.name = name;
  }

  synchronized void record(AnswerCase c, Promises promises, String details) {
    cases++;
    int size = (int) c.steps().stream().filter(s -> s.kind() != null).count()
        + (c.crash() == AnswerCase.Crash.NONE ? 0 : 1) + (c.server().async() ? 1 : 0);
    for (Promises.Broken b : promises.broken()) {
      counts.merge(b.promise(), 1, Integer::sum);
      String signature = signature(b.text());
      signatures.computeIfAbsent(b.promise(), p -> new TreeMap<>())
          .merge(signature, 1, Integer::sum);
      if (size < smallestSize.getOrDefault(signature, Integer.MAX_VALUE)) {
        smallestSize.put(signature, size);
        smallest.put(signature, "case: " + c + "\n    " + details);
      }
    }
  }

  /** The broken promise's text without request numbers, ports and ids. */
  private static String signature(String text) {
    return text.replaceAll("#\\d+ ", "").replaceAll(":\\d{4,5}/", ":PORT/")
        .replaceAll("op_\\d+", "op_N").replaceAll("\\[[^\\]]*\\]$", "")
        .replaceAll("Effect\\[.*", "(effects)");
  }

  synchronized void write() {
    StringBuilder out = new StringBuilder(name + ": " + cases + " cases\n");
    counts.forEach((promise, n) -> {
      out.append("\n## ").append(promise).append(": broken in ").append(n).append(" cases\n");
      signatures.get(promise).forEach((signature, k) -> out.append("\n- ").append(signature)
          .append(" (").append(k).append(" cases); smallest ")
          .append(smallest.get(signature)).append("\n"));
    });
    try {
      Path dir = Path.of("target");
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("property-survey-" + name + ".txt"), out,
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
