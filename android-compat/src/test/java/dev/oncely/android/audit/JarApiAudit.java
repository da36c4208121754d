package dev.oncely.android.audit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.codehaus.mojo.animal_sniffer.ClassListBuilder;
import org.codehaus.mojo.animal_sniffer.Clazz;
import org.codehaus.mojo.animal_sniffer.SignatureChecker;
import org.codehaus.mojo.animal_sniffer.logging.Logger;

/**
 * Checks the classes of one jar against an Android API signature with animal-sniffer's checker,
 * the same engine as the build's API check. Entries under {@code META-INF/} (multi-release
 * variants, {@code module-info}) are skipped: D8 dexes only the base classes.
 */
final class JarApiAudit {
  private static final String MARKER = "Undefined reference: ";

  private final Map<String, Clazz> signature;
  private final Set<String> knownClasses;

  private JarApiAudit(Map<String, Clazz> signature, Set<String> knownClasses) {
    this.signature = signature;
    this.knownClasses = knownClasses;
  }

  /**
   * Returns an audit that treats every class in {@code classpath} as present, so only references
   * to classes outside both the signature and the classpath are reported.
   */
  static JarApiAudit of(Map<String, Clazz> signature, List<File> classpath) throws IOException {
    ClassListBuilder classes = new ClassListBuilder(new CollectingLogger());
    for (File jar : classpath) {
      classes.process(jar);
    }
    return new JarApiAudit(signature, classes.getPackages());
  }

  /** Returns every undefined reference in {@code jar}, one per use site. */
  List<Finding> check(File jar) throws IOException {
    CollectingLogger log = new CollectingLogger();
    EntryChecker checker = new EntryChecker(signature, knownClasses, log);
    try (JarFile file = new JarFile(jar)) {
      Enumeration<JarEntry> entries = file.entries();
      while (entries.hasMoreElements()) {
        JarEntry entry = entries.nextElement();
        if (entry.getName().endsWith(".class") && !entry.getName().startsWith("META-INF/")) {
          try (InputStream in = file.getInputStream(entry)) {
            checker.check(entry.getName(), in);
          }
        }
      }
    }
    List<Finding> findings = new ArrayList<>();
    for (String message : log.errors) {
      int at = message.indexOf(MARKER);
      if (at >= 0) {
        String user = message.substring(0, at).replaceAll("(\\.class).*$", "$1");
        findings.add(Finding.of(message.substring(at + MARKER.length()).trim(), user));
      }
    }
    return findings;
  }

  /** One undefined reference: what is missing and which class uses it. */
  record Finding(String missingClass, String reference, String user) {
    static Finding of(String reference, String user) {
      return new Finding(ownerOf(reference), reference, user);
    }

    /** Whether the missing class belongs to the platform (JDK or Android), not to a library. */
    boolean isPlatform() {
      // animal-sniffer prints java.lang classes without their package.
      return !missingClass.contains(".")
          || missingClass.startsWith("java.") || missingClass.startsWith("javax.")
          || missingClass.startsWith("sun.") || missingClass.startsWith("jdk.")
          || missingClass.startsWith("android.") || missingClass.startsWith("dalvik.")
          || missingClass.startsWith("org.w3c.") || missingClass.startsWith("org.xml.")
          || missingClass.startsWith("org.ietf.");
    }

    /**
     * The class a reference names: {@code a.B} for a class, the owner for a member
     * ({@code int a.B.f}, {@code void a.B.m(int)}).
     */
    private static String ownerOf(String reference) {
      String head = reference.contains("(") ? reference.substring(0, reference.indexOf('(')) : reference;
      String last = head.substring(head.lastIndexOf(' ') + 1);
      if (!head.contains(" ")) {
        return last;
      }
      int dot = last.lastIndexOf('.');
      return dot < 0 ? last : last.substring(0, dot);
    }
  }

  private static final class EntryChecker extends SignatureChecker {
    EntryChecker(Map<String, Clazz> signature, Set<String> known, Logger log) throws IOException {
      super(signature, known, log);
      setSourcePath(List.of());
    }

    void check(String name, InputStream in) throws IOException {
      process(name, in);
    }
  }

  private static final class CollectingLogger implements Logger {
    final List<String> errors = new ArrayList<>();

    @Override public void info(String s) {}

    @Override public void info(String s, Throwable t) {}

    @Override public void debug(String s) {}

    @Override public void debug(String s, Throwable t) {}

    @Override public void warn(String s) {}

    @Override public void warn(String s, Throwable t) {}

    @Override public void error(String s) {
      errors.add(s);
    }

    @Override public void error(String s, Throwable t) {
      errors.add(s);
    }
  }
}
