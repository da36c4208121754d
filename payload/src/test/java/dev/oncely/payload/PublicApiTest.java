package dev.oncely.payload;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Pins the public signature of {@code oncely-payload} in {@code payload/api/oncely-payload.api}, so
 * an API change (the client and the server half both build on it) is always a visible, reviewed
 * diff. After an intended change run the build with {@code -Doncely.api.update=true} and commit the
 * file.
 */
class PublicApiTest {
  private static final Path API_FILE = Path.of("api", "oncely-payload.api");

  @Test
  void public_api_matches_the_pinned_signature_file() throws Exception {
    String actual = String.join("\n", dump()) + "\n";
    if (Boolean.getBoolean("oncely.api.update")) {
      Files.createDirectories(API_FILE.getParent());
      Files.writeString(API_FILE, actual, StandardCharsets.UTF_8);
    }
    String pinned = Files.readString(API_FILE, StandardCharsets.UTF_8);
    assertThat(actual)
        .as("public API of oncely-payload changed; if intended, rerun with"
            + " -Doncely.api.update=true and commit %s", API_FILE)
        .isEqualTo(pinned);
  }

  private static List<String> dump() throws IOException, URISyntaxException,
      ClassNotFoundException {
    Path classes = Path.of(Fingerprints.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI());
    List<String> names = new ArrayList<>();
    try (Stream<Path> files = Files.walk(classes)) {
      files.filter(p -> p.toString().endsWith(".class"))
          .map(p -> classes.relativize(p).toString().replace('/', '.').replace('\\', '.'))
          .map(n -> n.substring(0, n.length() - ".class".length()))
          .filter(n -> n.startsWith("dev.oncely.payload."))
          .filter(n -> !n.endsWith("package-info") && !n.equals("module-info"))
          .sorted()
          .forEach(names::add);
    }
    List<String> lines = new ArrayList<>();
    for (String name : names) {
      Class<?> type = Class.forName(name, false, PublicApiTest.class.getClassLoader());
      if (!isVisible(type)) {
        continue;
      }
      lines.add(Modifier.toString(type.getModifiers() & ~Modifier.STATIC & ~Modifier.INTERFACE)
          + (type.isInterface() ? " interface " : " class ") + type.getName()
          + (type.getGenericSuperclass() == null || type.getSuperclass() == Object.class
              ? "" : " extends " + type.getGenericSuperclass().getTypeName()));
      List<String> members = new ArrayList<>();
      for (Constructor<?> c : type.getDeclaredConstructors()) {
        addIfVisible(members, c, c.toGenericString());
      }
      for (Method m : type.getDeclaredMethods()) {
        if (!m.isSynthetic() && !m.isBridge()) {
          addIfVisible(members, m, m.toGenericString());
        }
      }
      for (Field f : type.getDeclaredFields()) {
        if (!f.isSynthetic()) {
          addIfVisible(members, f, f.toGenericString());
        }
      }
      members.sort(null);
      members.forEach(m -> lines.add("  " + m));
    }
    return lines;
  }

  private static boolean isVisible(Class<?> type) {
    if (type.isAnonymousClass() || type.isLocalClass() || type.isSynthetic()) {
      return false;
    }
    for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
      if (!Modifier.isPublic(t.getModifiers())) {
        return false;
      }
    }
    return true;
  }

  private static void addIfVisible(List<String> members, Member member, String signature) {
    int mod = member.getModifiers();
    if (Modifier.isPublic(mod) || Modifier.isProtected(mod)) {
      members.add(signature);
    }
  }
}
