package dev.oncely.examples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;

/**
 * The summary the load driver ({@code run} / {@code resume}) prints as the last line of stdout
 * (the demo's report format, docs/demo.md): {@code {"intents":N,"completed":..,"rejected":..,"pending":..,
 * "conflicts":..,"attempts":..,"retries":..,"status202":..,"status409":..,"elapsedMs":..}}.
 */
public record DriverReport(long intents, long completed, long rejected, long pending,
    long conflicts, long attempts, long retries, long status202, long status409, long elapsedMs) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> FIELDS = List.of("intents", "completed", "rejected", "pending",
      "conflicts", "attempts", "retries", "status202", "status409", "elapsedMs");

  /**
   * Parses one summary line.
   *
   * @throws IllegalArgumentException if the line is not a JSON object with every field as a number,
   *     naming the first missing field
   */
  public static DriverReport parse(String line) {
    JsonNode node;
    try {
      node = line == null ? null : JSON.readTree(line);
    } catch (IOException e) {
      node = null;
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("the load driver's last stdout line is not a JSON object");
    }
    long[] v = new long[FIELDS.size()];
    for (int i = 0; i < v.length; i++) {
      JsonNode field = node.get(FIELDS.get(i));
      if (field == null || !field.isIntegralNumber()) {
        throw new IllegalArgumentException(
            "the load driver's summary lacks the number '" + FIELDS.get(i) + "'");
      }
      v[i] = field.asLong();
    }
    return new DriverReport(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
  }
}
