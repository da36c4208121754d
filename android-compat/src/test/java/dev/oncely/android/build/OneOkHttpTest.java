package dev.oncely.android.build;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/**
 * An app that depends on {@code oncely-android-compat} gets exactly one OkHttp. The build writes
 * what Maven resolves from this module's POM for a consumer (dependency:list, runtime scope, every
 * exclusion applied as a consumer's resolver applies it) and copies OkHttp's Gradle module
 * metadata, which is what Gradle reads instead of OkHttp's POM.
 */
public class OneOkHttpTest {
  private static final File CLASSPATH = new File(System.getProperty("oncely.consumer.classpath"));
  private static final File OKHTTP_MODULE = new File(System.getProperty("oncely.okhttp.module"));

  /** groupId:artifactId of every artifact on the consumer's runtime classpath. */
  private static List<String> consumerArtifacts() throws IOException {
    List<String> artifacts = new ArrayList<>();
    for (String line : Files.readAllLines(CLASSPATH.toPath(), StandardCharsets.UTF_8)) {
      String[] parts = line.trim().split(":");
      if (parts.length >= 5 && !line.contains("The following files")) {
        artifacts.add(parts[0] + ":" + parts[1]);
      }
    }
    return artifacts;
  }

  @Test
  public void the_consumer_classpath_names_exactly_one_okhttp_artifact_the_multiplatform_one()
      throws IOException {
    List<String> artifacts = consumerArtifacts();

    assertThat(artifacts).contains("dev.oncely:oncely-client", "com.fasterxml.jackson.core:jackson-core");
    assertThat(artifacts.stream().filter(a -> a.startsWith("com.squareup.okhttp3:")))
        .containsExactly("com.squareup.okhttp3:okhttp");
  }

  @Test
  public void the_consumer_classpath_has_neither_jackson_databind_nor_caffeine()
      throws IOException {
    assertThat(consumerArtifacts()).doesNotContain(
        "com.fasterxml.jackson.core:jackson-databind",
        "com.fasterxml.jackson.core:jackson-annotations",
        "com.github.ben-manes.caffeine:caffeine");
  }

  @Test
  public void gradle_resolves_okhttp_to_okhttp_android_on_android_and_okhttp_jvm_on_the_jvm()
      throws IOException {
    Map<String, String> runtimeModuleByEnvironment = runtimeVariants();

    assertThat(runtimeModuleByEnvironment)
        .containsEntry("android", "okhttp-android")
        .containsEntry("standard-jvm", "okhttp-jvm");
  }

  @Test
  public void okhttp_pom_sends_gradle_to_its_module_metadata() throws IOException {
    String pom = Files.readString(new File(OKHTTP_MODULE.getParentFile(), "okhttp.pom").toPath(),
        StandardCharsets.UTF_8);

    assertThat(pom).contains("do_not_remove: published-with-gradle-metadata");
  }

  /**
   * The Gradle module metadata's java-runtime variants: {@code org.gradle.jvm.environment} to the
   * module they are available at.
   */
  private static Map<String, String> runtimeVariants() throws IOException {
    Map<String, String> variants = new HashMap<>();
    try (JsonParser p = new JsonFactory().createParser(OKHTTP_MODULE)) {
      while (p.nextToken() != null) {
        if (p.currentToken() == JsonToken.FIELD_NAME && p.currentName().equals("variants")) {
          p.nextToken();
          while (p.nextToken() == JsonToken.START_OBJECT) {
            readVariant(p, variants);
          }
        }
      }
    }
    return variants;
  }

  private static void readVariant(JsonParser p, Map<String, String> variants) throws IOException {
    String usage = null;
    String environment = null;
    String module = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      if (field.equals("attributes") || field.equals("available-at")) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          if (name.equals("org.gradle.usage")) {
            usage = p.getText();
          } else if (name.equals("org.gradle.jvm.environment")) {
            environment = p.getText();
          } else if (field.equals("available-at") && name.equals("module")) {
            module = p.getText();
          } else {
            p.skipChildren();
          }
        }
      } else {
        p.skipChildren();
      }
    }
    if ("java-runtime".equals(usage) && environment != null && module != null) {
      variants.put(environment, module);
    }
  }
}
