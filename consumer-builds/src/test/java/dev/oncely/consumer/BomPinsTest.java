package dev.oncely.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * {@code oncely-bom} cannot inherit from the parent POM (it must manage only Oncely and OkHttp), so
 * it repeats the versions it needs: each must equal the parent's property of the same name, and
 * every plugin the BOM's own lifecycles run (a {@code pom} packaging: clean, install, deploy; the
 * release profile: gpg, central publishing) is pinned, so {@code mvn -o install} never falls back
 * to Maven's default plugin versions.
 */
class BomPinsTest {
  private static final Path ROOT = Path.of(System.getProperty("oncely.root"));

  private static Document read(Path pom) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(pom.toFile());
  }

  private static Map<String, String> properties(Document pom) {
    Map<String, String> properties = new LinkedHashMap<>();
    for (Element block : children(pom.getDocumentElement(), "properties")) {
      NodeList nodes = block.getChildNodes();
      for (int i = 0; i < nodes.getLength(); i++) {
        if (nodes.item(i) instanceof Element property) {
          properties.put(property.getTagName(), property.getTextContent().trim());
        }
      }
    }
    return properties;
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node node = nodes.item(i);
      if (node instanceof Element element && element.getTagName().equals(name)) {
        found.add(element);
      }
    }
    return found;
  }

  private static String text(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? "" : found.get(0).getTextContent().trim();
  }

  @Test
  void every_version_the_bom_repeats_is_the_parents() throws Exception {
    Map<String, String> parent = properties(read(ROOT.resolve("pom.xml")));
    Map<String, String> bom = properties(read(ROOT.resolve("bom/pom.xml")));

    assertThat(bom).containsKeys("okhttp.version", "jspecify.version",
        "project.build.outputTimestamp");
    bom.forEach((name, value) ->
        assertThat(parent).as("the parent's %s", name).containsEntry(name, value));
  }

  @Test
  void every_plugin_of_the_boms_lifecycles_is_pinned_by_a_property_of_the_parent()
      throws Exception {
    Document bom = read(ROOT.resolve("bom/pom.xml"));
    Map<String, String> pinned = new LinkedHashMap<>();
    NodeList plugins = bom.getElementsByTagName("plugin");
    for (int i = 0; i < plugins.getLength(); i++) {
      Element plugin = (Element) plugins.item(i);
      String version = text(plugin, "version");
      if (!version.isEmpty()) {
        pinned.put(text(plugin, "artifactId"), version);
      }
    }
    assertThat(pinned).containsOnlyKeys("maven-clean-plugin", "maven-install-plugin",
        "maven-deploy-plugin", "maven-gpg-plugin", "central-publishing-maven-plugin");
    Map<String, String> bomProperties = properties(bom);
    pinned.forEach((plugin, version) -> {
      assertThat(version).as(plugin).matches("\\$\\{[a-z-]+-plugin\\.version}");
      assertThat(bomProperties).containsKey(version.substring(2, version.length() - 1));
    });
    for (int i = 0; i < plugins.getLength(); i++) {
      Element plugin = (Element) plugins.item(i);
      assertThat(pinned).as("a version for %s", text(plugin, "artifactId"))
          .containsKey(text(plugin, "artifactId"));
    }
  }

  @Test
  void the_bom_manages_okhttp_through_okhttps_own_bom_at_the_version_oncely_is_built_with()
      throws Exception {
    Document bom = read(ROOT.resolve("bom/pom.xml"));
    NodeList dependencies = bom.getElementsByTagName("dependency");
    List<String> imports = new ArrayList<>();
    for (int i = 0; i < dependencies.getLength(); i++) {
      Element dependency = (Element) dependencies.item(i);
      if (text(dependency, "scope").equals("import")) {
        imports.add(text(dependency, "groupId") + ":" + text(dependency, "artifactId") + ":"
            + text(dependency, "version"));
      }
    }
    assertThat(imports).containsExactly("com.squareup.okhttp3:okhttp-bom:${okhttp.version}");
  }
}
