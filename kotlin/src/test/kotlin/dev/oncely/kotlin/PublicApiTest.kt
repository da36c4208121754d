package dev.oncely.kotlin

import java.nio.file.Files
import java.nio.file.Path
import kotlin.reflect.KCallable
import kotlin.reflect.KFunction
import kotlin.reflect.KParameter
import kotlin.reflect.KProperty
import kotlin.reflect.KVisibility
import kotlin.reflect.full.declaredMembers
import kotlin.reflect.jvm.kotlinFunction
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/**
 * Pins the public Kotlin signature of `oncely-kotlin` in `kotlin/api/oncely-kotlin.api`, with
 * Kotlin types (so `String?` versus `String`), and checks that no public declaration has a
 * platform type (`T!`). After an intended change run the build with `-Doncely.api.update=true`
 * and commit the file.
 */
class PublicApiTest {
  private val apiFile = Path.of("api", "oncely-kotlin.api")

  @Test
  fun public_api_matches_the_pinned_signature_file_and_has_no_platform_types() {
    val actual = dump().joinToString("\n") + "\n"
    if (java.lang.Boolean.getBoolean("oncely.api.update")) {
      Files.createDirectories(apiFile.parent)
      Files.writeString(apiFile, actual)
    }

    assertThat(actual).describedAs("platform types in the public API").doesNotContain("!")
    assertThat(actual)
      .describedAs("public API of oncely-kotlin changed; if intended, rerun with -Doncely.api.update=true and commit $apiFile")
      .isEqualTo(Files.readString(apiFile))
  }

  private fun dump(): List<String> {
    val classes = Path.of(IntentEventFlow::class.java.protectionDomain.codeSource.location.toURI())
    val names = Files.walk(classes).use { files ->
      files.filter { it.toString().endsWith(".class") }
        .map { classes.relativize(it).toString().removeSuffix(".class").replace('/', '.').replace('\\', '.') }
        .toList()
        .sorted()
    }
    val lines = mutableListOf<String>()
    for (name in names) {
      val type = Class.forName(name, false, javaClass.classLoader)
      when (type.getAnnotation(Metadata::class.java)?.kind) {
        FILE_FACADE -> {
          val functions = type.declaredMethods.mapNotNull { it.kotlinFunction }
            .filter { it.visibility == KVisibility.PUBLIC }
          if (functions.isNotEmpty()) {
            lines += "file ${type.name}"
            lines += functions.map { "  " + render(it) }.sorted()
          }
        }
        CLASS -> {
          val kotlin = type.kotlin
          if (kotlin.visibility == KVisibility.PUBLIC) {
            lines += "class ${kotlin.qualifiedName} : ${kotlin.supertypes.joinToString()}"
            lines += (kotlin.constructors.filter { it.visibility == KVisibility.PUBLIC }.map { render(it) } +
              kotlin.declaredMembers.filter { it.visibility == KVisibility.PUBLIC }.map { render(it) })
              .map { "  $it" }.sorted()
          }
        }
      }
    }
    return lines
  }

  private fun render(callable: KCallable<*>): String {
    val modifiers = buildList {
      if (callable is KFunction<*> && callable.isSuspend) add("suspend")
      if (callable is KFunction<*> && callable.isInline) add("inline")
      add(if (callable is KProperty<*>) "val" else "fun")
    }.joinToString(" ")
    val receiver = callable.parameters.firstOrNull { it.kind == KParameter.Kind.EXTENSION_RECEIVER }
      ?.let { "${it.type}." } ?: ""
    val values = callable.parameters.filter { it.kind == KParameter.Kind.VALUE }
      .joinToString(prefix = "(", postfix = ")") { "${it.name}: ${it.type}${if (it.isOptional) " = ..." else ""}" }
    return "$modifiers $receiver${callable.name}" + (if (callable is KProperty<*>) "" else values) +
      ": ${callable.returnType}"
  }

  private companion object {
    const val CLASS = 1
    const val FILE_FACADE = 2
  }
}
