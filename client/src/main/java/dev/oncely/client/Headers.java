package dev.oncely.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Immutable copies of header maps, keeping the order in which names were first given. */
final class Headers {
  private Headers() {}

  static Map<String, List<String>> copyOf(Map<String, List<String>> headers, boolean refuseSecrets) {
    Objects.requireNonNull(headers, "headers");
    if (headers.isEmpty()) {
      return Collections.emptyMap();
    }
    Map<String, List<String>> copy = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      String name = Identifiers.checkHeaderName("header name",
          Objects.requireNonNull(e.getKey(), "header name"));
      if (SecretHeaders.isSecret(name)) {
        if (refuseSecrets) {
          throw new IllegalArgumentException(
              "header '" + name + "' carries credentials and is never stored; supply it from a"
                  + " HeaderProvider at send time");
        }
        continue;
      }
      List<String> values = new ArrayList<>();
      for (String v : Objects.requireNonNull(e.getValue(), "values of header " + name)) {
        values.add(Objects.requireNonNull(v, "value of header " + name));
      }
      copy.put(name, List.copyOf(values));
    }
    return Collections.unmodifiableMap(copy);
  }
}
