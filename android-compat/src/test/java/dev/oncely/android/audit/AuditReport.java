package dev.oncely.android.audit;

import dev.oncely.android.audit.JarApiAudit.Finding;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** Renders the audit as plain text: a summary table, then each jar's missing classes. */
final class AuditReport {
  private static final int EXAMPLES = 4;

  private AuditReport() {}

  static String render(Map<String, List<Finding>> apk, Map<String, List<Finding>> optional,
      Map<String, Long> sizes, ReviewedFindings reviewed) {
    StringBuilder out = new StringBuilder();
    out.append("Android API audit (AndroidApiAuditTest)\n")
        .append("Signature: ").append(System.getProperty("oncely.audit.signature")).append('\n')
        .append("A finding is a reference to a class or member that is neither in the Android API\n")
        .append("signature (with core library desugaring) nor in any audited jar.\n\n");
    out.append(String.format("%-44s %10s  %-9s %9s %9s %9s %9s%n", "jar", "bytes", "classpath",
        "platform", "reviewed", "absent", "reviewed"));
    summary(out, apk, "apk", sizes, reviewed);
    summary(out, optional, "audit", sizes, reviewed);
    out.append("\nplatform = missing JDK/Android classes or members (distinct); absent = classes\n")
        .append("on no audited classpath (distinct); reviewed = those of each kind with a reason\n")
        .append("in android-api-audit-reviewed.txt.\n");
    details(out, apk, "APK classpath", reviewed);
    details(out, optional, "Audited, not on the APK classpath", reviewed);
    return out.toString();
  }

  private static void summary(StringBuilder out, Map<String, List<Finding>> jars, String where,
      Map<String, Long> sizes, ReviewedFindings reviewed) {
    jars.forEach((jar, findings) -> {
      long platform = findings.stream().filter(Finding::isPlatform)
          .map(Finding::reference).distinct().count();
      long ok = findings.stream().filter(Finding::isPlatform)
          .filter(f -> reviewed.reasonFor(jar, f) != null)
          .map(Finding::reference).distinct().count();
      long absent = findings.stream().filter(f -> !f.isPlatform())
          .map(Finding::missingClass).distinct().count();
      long absentOk = findings.stream().filter(f -> !f.isPlatform())
          .filter(f -> reviewed.reasonFor(jar, f) != null)
          .map(Finding::missingClass).distinct().count();
      out.append(String.format("%-44s %10d  %-9s %9d %9d %9d %9d%n", jar, sizes.get(jar), where,
          platform, ok, absent, absentOk));
    });
  }

  private static void details(StringBuilder out, Map<String, List<Finding>> jars, String title,
      ReviewedFindings reviewed) {
    out.append("\n=== ").append(title).append(" ===\n");
    jars.forEach((jar, findings) -> {
      if (findings.isEmpty()) {
        return;
      }
      out.append("\n").append(jar).append('\n');
      Map<String, List<Finding>> byClass = findings.stream()
          .collect(Collectors.groupingBy(Finding::missingClass, TreeMap::new, Collectors.toList()));
      byClass.forEach((missing, uses) -> {
        Finding first = uses.get(0);
        String reason = reviewed.reasonFor(jar, first);
        out.append(String.format("  %s %s (%d uses)%s%n", first.isPlatform() ? "API " : "lib ",
            missing, uses.size(), reason == null ? "" : " - reviewed: " + reason));
        TreeSet<String> members = uses.stream().map(Finding::reference)
            .filter(r -> !r.equals(missing)).collect(Collectors.toCollection(TreeSet::new));
        members.stream().limit(EXAMPLES).forEach(m -> out.append("      ").append(m).append('\n'));
        if (members.size() > EXAMPLES) {
          out.append("      ... ").append(members.size() - EXAMPLES).append(" more members\n");
        }
        TreeSet<String> users = uses.stream().map(Finding::user)
            .collect(Collectors.toCollection(TreeSet::new));
        out.append("      used by ").append(users.stream().limit(EXAMPLES)
            .collect(Collectors.joining(", ")));
        out.append(users.size() > EXAMPLES ? " and " + (users.size() - EXAMPLES) + " more\n" : "\n");
      });
    });
  }
}
