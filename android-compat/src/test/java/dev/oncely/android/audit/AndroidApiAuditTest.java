package dev.oncely.android.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.android.audit.JarApiAudit.Finding;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.codehaus.mojo.animal_sniffer.Clazz;
import org.codehaus.mojo.animal_sniffer.SignatureChecker;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The dependency audit: checks every jar an app inherits from this module, plus the libraries we
 * keep off Android (Caffeine) or leave opt-in (MapDB and its dependencies), against the same
 * Android API signature as the build's API check, and writes {@code target/android-api-audit.txt}.
 *
 * <p>Each platform API a jar on the APK classpath uses but the target level lacks, and each class
 * it names that is on no classpath at all, must be listed with a reason in
 * {@code android-api-audit-reviewed.txt}; a dependency upgrade that starts calling a new missing
 * API fails this test until someone reviews it.
 */
public class AndroidApiAuditTest {
  private static final File AUDIT_DIR = new File(System.getProperty("oncely.audit.dir"));
  private static final File REPORT = new File(System.getProperty("oncely.audit.report"));

  private static ReviewedFindings reviewed;
  private static Map<String, List<Finding>> apk;
  private static Map<String, List<Finding>> optional;

  @BeforeClass
  public static void auditEveryJar() throws IOException {
    Map<String, Clazz> signature;
    try (InputStream in = new FileInputStream(System.getProperty("oncely.audit.signature"))) {
      signature = SignatureChecker.loadClasses(in);
    }
    List<File> apkJars = jars("apk");
    List<File> optionalJars = jars("optional");
    List<File> all = new ArrayList<>(apkJars);
    all.addAll(optionalJars);
    JarApiAudit audit = JarApiAudit.of(signature, all);
    reviewed = ReviewedFindings.load("/android-api-audit-reviewed.txt");
    apk = checkAll(audit, apkJars);
    optional = checkAll(audit, optionalJars);
    Files.writeString(REPORT.toPath(),
        AuditReport.render(apk, optional, sizes(apkJars, optionalJars), reviewed),
        StandardCharsets.UTF_8);
  }

  @Test
  public void every_missing_platform_api_on_the_apk_classpath_is_reviewed() {
    assertThat(unreviewed(true))
        .as("missing Android APIs not yet reviewed; see " + REPORT)
        .isEmpty();
  }

  @Test
  public void every_class_missing_from_the_apk_classpath_is_reviewed() {
    assertThat(unreviewed(false))
        .as("references to classes on no classpath, not yet reviewed; see " + REPORT)
        .isEmpty();
  }

  private static List<String> unreviewed(boolean platform) {
    List<String> unreviewed = new ArrayList<>();
    apk.forEach((jar, findings) -> findings.stream()
        .filter(f -> f.isPlatform() == platform)
        .filter(f -> reviewed.reasonFor(jar, f) == null)
        .map(f -> jar + ": " + f.reference() + " (used by " + f.user() + ")")
        .distinct()
        .forEach(unreviewed::add));
    return unreviewed;
  }

  @Test
  public void every_reviewed_entry_still_matches_a_finding() {
    assertThat(reviewed.unused(apk))
        .as("entries of android-api-audit-reviewed.txt that no longer match anything; delete them")
        .isEmpty();
  }

  @Test
  public void caffeine_is_off_the_apk_classpath_and_its_missing_apis_are_reported() {
    assertThat(apk.keySet()).noneMatch(jar -> jar.startsWith("caffeine-"));
    assertThat(optional.keySet()).anyMatch(jar -> jar.startsWith("caffeine-"));
  }

  @Test
  public void mapdb_and_its_dependencies_are_off_the_apk_classpath() {
    assertThat(apk.keySet()).noneMatch(jar -> jar.startsWith("mapdb-")
        || jar.startsWith("eclipse-collections") || jar.startsWith("guava-"));
  }

  private static List<File> jars(String group) {
    File[] files = new File(AUDIT_DIR, group).listFiles((d, n) -> n.endsWith(".jar"));
    assertThat(files).as("audit input " + group).isNotEmpty();
    Arrays.sort(files, Comparator.comparing(File::getName));
    return Arrays.asList(files);
  }

  private static Map<String, List<Finding>> checkAll(JarApiAudit audit, List<File> jars)
      throws IOException {
    Map<String, List<Finding>> out = new TreeMap<>();
    for (File jar : jars) {
      out.put(jar.getName(), audit.check(jar));
    }
    return out;
  }

  private static Map<String, Long> sizes(List<File> apkJars, List<File> optionalJars) {
    Map<String, Long> out = new TreeMap<>();
    apkJars.forEach(f -> out.put(f.getName(), f.length()));
    optionalJars.forEach(f -> out.put(f.getName(), f.length()));
    return out;
  }
}
