package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import okhttp3.OkHttp;
import org.junit.jupiter.api.Test;

/**
 * A Maven or Gradle JVM project that depends on {@code oncely-client} gets OkHttp's JVM build and
 * the JSON streaming parser only. The build writes what Maven resolves from this module's POM for a
 * consumer (dependency:list, runtime scope).
 */
class ConsumerClasspathTest {
  private static List<String> consumerArtifacts() throws IOException {
    List<String> artifacts = new ArrayList<>();
    for (String line : Files.readAllLines(
        Paths.get(System.getProperty("oncely.consumer.classpath")), StandardCharsets.UTF_8)) {
      String[] parts = line.trim().split(":");
      if (parts.length >= 5) {
        artifacts.add(parts[0] + ":" + parts[1]);
      }
    }
    return artifacts;
  }

  @Test
  void a_jvm_consumer_gets_exactly_one_okhttp_the_jvm_build() throws IOException {
    // "okhttp" is OkHttp 5's multiplatform jar without classes (it pins the version against
    // Retrofit's okhttp 4, see the POM); okhttp-jvm is the one with the classes.
    assertThat(consumerArtifacts().stream().filter(a -> a.startsWith("com.squareup.okhttp3:")))
        .containsExactlyInAnyOrder(
            "com.squareup.okhttp3:okhttp", "com.squareup.okhttp3:okhttp-jvm");
  }

  @Test
  void okhttps_multiplatform_jar_carries_no_classes() throws IOException {
    Path jar = Path.of(OkHttp.class.getProtectionDomain().getCodeSource().getLocation().getPath());
    Path wrapper = jar.getParent().getParent().getParent().resolve("okhttp").resolve(
        OkHttp.VERSION).resolve("okhttp-" + OkHttp.VERSION + ".jar");
    try (JarFile file = new JarFile(wrapper.toFile())) {
      assertThat(file.stream().map(JarEntry::getName).filter(n -> n.endsWith(".class"))).isEmpty();
    }
  }

  @Test
  void a_consumer_gets_jackson_core_and_never_jackson_databind() throws IOException {
    assertThat(consumerArtifacts())
        .contains("com.fasterxml.jackson.core:jackson-core")
        .doesNotContain("com.fasterxml.jackson.core:jackson-databind",
            "com.fasterxml.jackson.core:jackson-annotations");
  }
}
