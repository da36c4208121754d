package dev.oncely.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The crash points of the kill tests enter through a test-only seam: no class this module ships
 * names an {@code oncely.test.*} system property, so no setting of a user's JVM can arm a halt.
 */
class ShippedCodeReadsNoTestSwitchTest {
  @Test
  void no_shipped_class_names_an_oncely_test_property() throws Exception {
    Path classes = Path.of(SqliteIntentStore.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI());
    List<Path> shipped;
    try (Stream<Path> files = Files.walk(classes)) {
      shipped = files.filter(p -> p.toString().endsWith(".class")).toList();
    }
    assertThat(shipped).isNotEmpty();
    for (Path file : shipped) {
      String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
      assertThat(text).as(classes.relativize(file).toString()).doesNotContain("oncely.test.");
    }
  }
}
