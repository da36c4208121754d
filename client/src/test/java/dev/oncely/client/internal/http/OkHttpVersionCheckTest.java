package dev.oncely.client.internal.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

/**
 * The start-up check both builders run: the OkHttp of this build passes, the real OkHttp 4 jar
 * that Retrofit 3.0.0 asks for (copied by the build, loaded in a class loader of its own) is
 * refused with a message that names the fix.
 */
class OkHttpVersionCheckTest {
  private static final String OKHTTP_VERSION = System.getProperty("oncely.okhttp.version");

  @Test
  void the_okhttp_this_build_tests_with_passes_and_both_builders_build() {
    assertThat(OkHttpVersionCheck.versionOn(OkHttpClient.class.getClassLoader()))
        .isEqualTo(OKHTTP_VERSION)
        .startsWith("5.");
    assertThatCode(OkHttpVersionCheck::requireOkHttp5).doesNotThrowAnyException();
    try (IdempotentClient client = IdempotentClient.builder().build()) {
      assertThat(client).isNotNull();
    }
    assertThat(IdempotencyInterceptor.builder().build()).isNotNull();
  }

  @Test
  void okhttp_4_from_its_own_jar_is_read_and_refused() throws IOException {
    Path okhttp4 = Path.of(System.getProperty("oncely.okhttp4.jar"));
    assertThat(okhttp4).isRegularFile();
    URL kotlinStdlib = kotlin.Unit.class.getProtectionDomain().getCodeSource().getLocation();
    // The platform loader as parent: okhttp3.* comes from the OkHttp 4 jar, never this class path.
    try (URLClassLoader loader = new URLClassLoader(
        new URL[] {okhttp4.toUri().toURL(), kotlinStdlib}, ClassLoader.getPlatformClassLoader())) {
      String version = OkHttpVersionCheck.versionOn(loader);
      assertThat(version).startsWith("4.");
      assertThatThrownBy(() -> OkHttpVersionCheck.require(version))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("serves OkHttp " + version)
          .hasMessageContaining("dev.oncely:oncely-bom")
          .hasMessageContaining("com.squareup.okhttp3:okhttp-bom:" + OKHTTP_VERSION);
    }
  }

  @Test
  void okhttp_3_is_refused_too() {
    assertThatThrownBy(() -> OkHttpVersionCheck.require("3.14.9"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Oncely needs OkHttp 5");
  }

  @Test
  void an_unknown_version_is_no_evidence_and_passes() {
    // A class path without okhttp3.OkHttp (or a shrunk app that renamed it) reads as unknown.
    assertThat(OkHttpVersionCheck.versionOn(ClassLoader.getPlatformClassLoader())).isNull();
    assertThatCode(() -> OkHttpVersionCheck.require(null)).doesNotThrowAnyException();
    assertThatCode(() -> OkHttpVersionCheck.require("5.3.2")).doesNotThrowAnyException();
    assertThatCode(() -> OkHttpVersionCheck.require("6.0.0")).doesNotThrowAnyException();
  }
}
