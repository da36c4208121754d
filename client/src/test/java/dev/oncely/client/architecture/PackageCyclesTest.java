package dev.oncely.client.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Reads the {@code import} lines of the client's main sources, as ArchUnit-style tests do, and
 * fails on any cycle between packages, naming the packages and the files that close it.
 *
 * <p>Every package is one node, except the two entry points and the builder and scheduler that
 * construct the engine ({@link #ENTRY_POINTS}): they sit in {@code dev.oncely.client} for their
 * users' sake, but they are the top of the graph, the only classes of the public package that
 * may import the engine's internals. So the rules this test keeps are: the value types, dialects
 * and events import no internal package but the leaf {@code internal} (shared rules such as
 * {@code Defaults} and {@code ParsedUrls}, which import nothing of the client); no internal class
 * imports an entry point; and the internal sub-packages ({@code drive}, {@code http}, {@code
 * pacing}) depend on each other in one direction only.
 */
class PackageCyclesTest {
  private static final Path SOURCES = Path.of("src", "main", "java");
  private static final Set<String> ENTRY_POINTS = Set.of(
      "dev.oncely.client.IdempotentClient",
      "dev.oncely.client.IdempotencyInterceptor",
      "dev.oncely.client.DriveSettingsBuilder",
      "dev.oncely.client.DueWorkScheduler");
  private static final String ENTRY_NODE = "dev.oncely.client (entry points)";
  private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
  private static final Pattern IMPORT =
      Pattern.compile("^import (?:static )?(dev\\.oncely\\.[\\w.]+);", Pattern.MULTILINE);

  @Test
  void the_client_packages_import_each_other_without_a_cycle() throws IOException {
    Map<String, Map<String, Set<String>>> graph = graph();
    List<String> cycles = new ArrayList<>();
    for (String from : graph.keySet()) {
      for (String to : graph.get(from).keySet()) {
        List<String> back = path(graph, to, from);
        if (back != null && from.compareTo(to) < 0) {
          cycles.add(from + " -> " + to + " (in " + graph.get(from).get(to) + ") and back: "
              + String.join(" -> ", back) + " (in " + graph.get(back.get(back.size() - 2))
              .get(from) + ")");
        }
      }
    }
    assertThat(cycles).as("package cycles").isEmpty();
  }

  @Test
  void no_internal_class_imports_an_entry_point() throws IOException {
    Map<String, Map<String, Set<String>>> graph = graph();
    List<String> found = new ArrayList<>();
    graph.forEach((from, edges) -> {
      if (from.contains(".internal") && edges.containsKey(ENTRY_NODE)) {
        found.add(from + " " + edges.get(ENTRY_NODE));
      }
    });
    assertThat(found).isEmpty();
  }

  @Test
  void the_reader_sees_the_layers_it_checks() throws IOException {
    // A guard against a test that passes because it read nothing.
    Map<String, Map<String, Set<String>>> graph = graph();
    assertThat(graph).containsKeys(ENTRY_NODE, "dev.oncely.client",
        "dev.oncely.client.internal.drive", "dev.oncely.client.internal.http");
    assertThat(graph.get(ENTRY_NODE)).containsKey("dev.oncely.client.internal.drive");
  }

  /** Node to node to the files of {@code from} that import {@code to}. */
  private static Map<String, Map<String, Set<String>>> graph() throws IOException {
    Map<String, String> nodeOfClass = new TreeMap<>();
    Map<Path, String> nodeOfFile = new TreeMap<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String text = Files.readString(file);
        Matcher pkg = PACKAGE.matcher(text);
        if (!pkg.find()) {
          continue;
        }
        String name = file.getFileName().toString().replace(".java", "");
        String type = pkg.group(1) + "." + name;
        String node = ENTRY_POINTS.contains(type) ? ENTRY_NODE : pkg.group(1);
        nodeOfClass.put(type, node);
        nodeOfFile.put(file, node);
      }
    }
    Map<String, Map<String, Set<String>>> graph = new TreeMap<>();
    for (Map.Entry<Path, String> file : nodeOfFile.entrySet()) {
      String from = file.getValue();
      graph.computeIfAbsent(from, k -> new TreeMap<>());
      Matcher imports = IMPORT.matcher(Files.readString(file.getKey()));
      while (imports.find()) {
        String to = nodeOf(imports.group(1), nodeOfClass);
        if (to != null && !to.equals(from)) {
          graph.get(from).computeIfAbsent(to, k -> new TreeSet<>())
              .add(file.getKey().getFileName().toString());
        }
      }
    }
    return graph;
  }

  /** The node of an imported name: a top-level type, a nested one, or a static member. */
  private static String nodeOf(String imported, Map<String, String> nodeOfClass) {
    String name = imported;
    while (name.contains(".")) {
      String node = nodeOfClass.get(name);
      if (node != null) {
        return node;
      }
      name = name.substring(0, name.lastIndexOf('.'));
    }
    return null;
  }

  /** A path of imports from {@code start} to {@code goal}, or null. */
  private static List<String> path(Map<String, Map<String, Set<String>>> graph, String start,
      String goal) {
    Map<String, String> cameFrom = new TreeMap<>();
    Set<String> seen = new LinkedHashSet<>(List.of(start));
    List<String> queue = new ArrayList<>(List.of(start));
    for (int i = 0; i < queue.size(); i++) {
      String at = queue.get(i);
      if (at.equals(goal)) {
        List<String> path = new ArrayList<>();
        for (String step = goal; step != null; step = cameFrom.get(step)) {
          path.add(0, step);
        }
        return path;
      }
      for (String next : graph.getOrDefault(at, Map.of()).keySet()) {
        if (seen.add(next)) {
          cameFrom.put(next, at);
          queue.add(next);
        }
      }
    }
    return null;
  }
}
