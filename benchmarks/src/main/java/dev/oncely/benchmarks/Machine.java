package dev.oncely.benchmarks;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Facts about the machine a run happens on, best effort (Linux files where present). */
final class Machine {
  private Machine() {}

  static Map<String, String> describe(Settings settings, String command) {
    Map<String, String> facts = new LinkedHashMap<>();
    facts.put("date", Instant.now().toString());
    facts.put("command", command);
    facts.put("suite", settings.name() + " (" + settings.reps() + " repetitions per comparison)");
    facts.put("cpus (nproc)", String.valueOf(Runtime.getRuntime().availableProcessors()));
    facts.put("cpu model", cpuModel());
    facts.put("memory", memory());
    facts.put("disk (temp dir)", disk());
    facts.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
        + ", max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
    facts.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    facts.put("load average at start", loadAverage());
    return facts;
  }

  static String loadAverage() {
    return firstLine(Path.of("/proc/loadavg"), "unknown");
  }

  private static String cpuModel() {
    for (String line : lines(Path.of("/proc/cpuinfo"))) {
      if (line.startsWith("model name")) {
        return line.substring(line.indexOf(':') + 1).trim();
      }
    }
    return System.getProperty("os.arch");
  }

  private static String memory() {
    for (String line : lines(Path.of("/proc/meminfo"))) {
      if (line.startsWith("MemTotal:")) {
        long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
        return kb / (1024 * 1024) + " GiB";
      }
    }
    return "unknown";
  }

  private static String disk() {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    try {
      FileStore store = Files.getFileStore(tmp);
      String device = store.name();
      String kind = "";
      String base = device.replaceFirst("^/dev/", "").replaceFirst("p?[0-9]+$", "");
      String rotational = firstLine(Path.of("/sys/block/" + base + "/queue/rotational"), null);
      if (rotational != null) {
        kind = rotational.equals("0") ? ", non-rotational" : ", rotational";
      }
      String model = firstLine(Path.of("/sys/block/" + base + "/device/model"), null);
      return tmp + " on " + device + " (" + store.type() + kind
          + (model == null ? "" : ", " + model) + ")";
    } catch (IOException e) {
      return tmp + " (file store unknown: " + e.getMessage() + ")";
    }
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }

  private static String firstLine(Path file, String otherwise) {
    List<String> lines = lines(file);
    return lines.isEmpty() ? otherwise : lines.get(0).trim();
  }
}
