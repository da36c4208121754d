package dev.oncely.android.audit;

import dev.oncely.android.audit.JarApiAudit.Finding;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The reviewed list: which missing platform classes a jar may use, and why that is safe. One rule
 * per line: {@code <artifactId> <class or package.*> <reason>}; {@code #} starts a comment.
 */
final class ReviewedFindings {
  private record Rule(String artifact, String missing, String reason) {
    boolean matches(String jar, Finding finding) {
      if (!jar.startsWith(artifact + "-") || !Character.isDigit(jar.charAt(artifact.length() + 1))) {
        return false;
      }
      return missing.endsWith("*")
          ? finding.missingClass().startsWith(missing.substring(0, missing.length() - 1))
          : finding.missingClass().equals(missing);
    }
  }

  private final List<Rule> rules;

  private ReviewedFindings(List<Rule> rules) {
    this.rules = rules;
  }

  static ReviewedFindings load(String resource) throws IOException {
    List<Rule> rules = new ArrayList<>();
    try (InputStream in = Objects.requireNonNull(
            ReviewedFindings.class.getResourceAsStream(resource), resource);
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      int number = 0;
      while ((line = reader.readLine()) != null) {
        number++;
        String text = line.strip();
        if (text.isEmpty() || text.startsWith("#")) {
          continue;
        }
        String[] parts = text.split("\\s+", 3);
        if (parts.length < 3) {
          throw new IllegalArgumentException(
              resource + " line " + number + ": expected '<artifactId> <class> <reason>'");
        }
        rules.add(new Rule(parts[0], parts[1], parts[2]));
      }
    }
    return new ReviewedFindings(rules);
  }

  /** The reason {@code finding} in {@code jar} is safe, or null when nobody reviewed it. */
  String reasonFor(String jar, Finding finding) {
    for (Rule rule : rules) {
      if (rule.matches(jar, finding)) {
        return rule.reason();
      }
    }
    return null;
  }

  /** The rules ({@code artifactId class}) that match none of {@code findings}: stale entries. */
  List<String> unused(Map<String, List<Finding>> findings) {
    List<String> unused = new ArrayList<>();
    for (Rule rule : rules) {
      boolean used = findings.entrySet().stream()
          .anyMatch(e -> e.getValue().stream().anyMatch(f -> rule.matches(e.getKey(), f)));
      if (!used) {
        unused.add(rule.artifact() + " " + rule.missing());
      }
    }
    return unused;
  }
}
