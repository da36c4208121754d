package dev.oncely.client.internal.http;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * Refuses to build a client or an interceptor when the OkHttp that the app's class path actually
 * serves is 3.x or 4.x: Oncely is compiled against OkHttp 5 and would otherwise fail at its first
 * call with a {@code NoSuchMethodError} (for example {@code okhttp3.Call.tag(Class, Function0)}).
 *
 * <p>How it gets there: Retrofit 3.0.0 (and others) ask for {@code com.squareup.okhttp3:okhttp}
 * 4.x, a jar with OkHttp's classes, while Oncely brings {@code okhttp-jvm} 5.x; the artifactIds
 * differ, so a build that manages {@code okhttp} to 4.x (its own {@code dependencyManagement}, an
 * older BOM) keeps both jars and the class path order picks which {@code okhttp3} classes load.
 * Oncely's POM asks for {@code okhttp} with an exact range, which settles it in Maven when nothing
 * manages the version.
 *
 * <p>Only positive evidence fails: {@code okhttp3.OkHttp.VERSION}, read by reflection from the
 * class loader that serves {@link OkHttpClient} (the constant would be inlined at compile time),
 * starting with {@code 3.} or {@code 4.}. A class or field that a shrinker (R8, ProGuard) removed
 * or renamed is no evidence, so such an app is never refused.
 */
public final class OkHttpVersionCheck {
  private static volatile boolean passed;

  private OkHttpVersionCheck() {}

  /**
   * Checks the OkHttp that this class path serves, once per class loader of this class.
   *
   * @throws IllegalStateException naming the OkHttp found and how to fix the build
   */
  public static void requireOkHttp5() {
    if (passed) {
      return;
    }
    require(versionOn(OkHttpClient.class.getClassLoader()));
    passed = true;
  }

  /**
   * The value of {@code okhttp3.OkHttp.VERSION} as {@code loader} serves it, or null when that
   * class or field cannot be read (absent, shrunk or renamed).
   */
  public static @Nullable String versionOn(@Nullable ClassLoader loader) {
    try {
      Class<?> okHttp = Class.forName("okhttp3.OkHttp", false, loader);
      Field version = okHttp.getField("VERSION");
      if (!Modifier.isStatic(version.getModifiers()) || version.getType() != String.class) {
        return null;
      }
      return (String) version.get(null);
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      return null;
    }
  }

  /**
   * Passes for OkHttp 5 and later and for an unknown version (null).
   *
   * @throws IllegalStateException for a version that starts with {@code 3.} or {@code 4.}
   */
  public static void require(@Nullable String version) {
    if (version != null && (version.startsWith("3.") || version.startsWith("4."))) {
      throw new IllegalStateException("Oncely needs OkHttp 5, but the class path serves OkHttp "
          + version + " (okhttp3.OkHttp.VERSION). Another dependency (Retrofit 3.0.0 asks for "
          + "com.squareup.okhttp3:okhttp:4.12.0) or a managed version put it there, next to "
          + "okhttp-jvm 5. Fix the build: import the BOM dev.oncely:oncely-bom (Maven: "
          + "<scope>import</scope> in dependencyManagement; Gradle: platform(...)), or "
          + "com.squareup.okhttp3:okhttp-bom:5.3.2, so that com.squareup.okhttp3:okhttp resolves "
          + "to 5.x.");
    }
  }
}
