package dev.oncely.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.benchmarks.internal.Stats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoublePredicate;

/**
 * The figures of one harness run, written as {@code results.csv}, {@code results.json} and
 * {@code results.md}. Every row keeps its per-repetition samples; summaries are min/median/max, and a
 * target is judged on the median. Thread-safe for adding rows.
 */
public final class Results {
  /** One figure: a metric of a section with one sample per repetition. */
  public record Row(String section, String metric, String unit, List<Double> samples,
      String target, Boolean met, String note) {

    /** Smallest sample. */
    public double min() {
      return Stats.min(samples);
    }

    /** Median sample. */
    public double median() {
      return Stats.median(samples);
    }

    /** Largest sample. */
    public double max() {
      return Stats.max(samples);
    }

    /** "met", "MISSED" or "" (no target). */
    public String verdict() {
      return met == null ? "" : met ? "met" : "MISSED";
    }
  }

  private final Map<String, String> machine;
  private final List<Row> rows = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, String> notes = Collections.synchronizedMap(new LinkedHashMap<>());

  /** Results of a run on {@code machine} (name to description, printed in order). */
  public Results(Map<String, String> machine) {
    this.machine = new LinkedHashMap<>(machine);
  }

  /** Adds a figure without a target. */
  public Row add(String section, String metric, String unit, List<Double> samples, String note) {
    return add(section, metric, unit, samples, null, null, note);
  }

  /**
   * Adds a figure whose median is judged by {@code check} against {@code target} (a phrase such as
   * "&gt;= 0.5").
   */
  public Row add(String section, String metric, String unit, List<Double> samples, String target,
      DoublePredicate check, String note) {
    List<Double> copy = List.copyOf(samples);
    Boolean met = check == null || copy.isEmpty() ? null : check.test(Stats.median(copy));
    Row row = new Row(section, metric, unit, copy, target, met, note == null ? "" : note);
    rows.add(row);
    System.out.printf(Locale.ROOT, "  %-12s %-58s %12s %12s %12s %s %s%n", section, metric,
        fmt(row.min()), fmt(row.median()), fmt(row.max()), unit,
        row.verdict().isEmpty() ? "" : "[" + row.verdict() + " " + target + "]");
    return row;
  }

  /** Adds a free-text note to a section (printed under its table). */
  public void note(String section, String text) {
    notes.merge(section, text, (a, b) -> a + " " + b);
  }

  /** Adds or replaces a machine or run fact. */
  public void fact(String name, String value) {
    synchronized (machine) {
      machine.put(name, value);
    }
  }

  /** A snapshot of the rows. */
  public List<Row> rows() {
    synchronized (rows) {
      return List.copyOf(rows);
    }
  }

  /** Writes the three files into {@code dir}, creating it. */
  public void write(Path dir) {
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("results.csv"), csv(), StandardCharsets.UTF_8);
      Files.writeString(dir.resolve("results.json"), json(), StandardCharsets.UTF_8);
      Files.writeString(dir.resolve("results.md"), markdown(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write results to " + dir, e);
    }
  }

  String csv() {
    StringBuilder out = new StringBuilder(
        "section,metric,unit,reps,min,median,max,target,verdict,samples,note\n");
    for (Row r : rows()) {
      out.append(quote(r.section())).append(',').append(quote(r.metric())).append(',')
          .append(quote(r.unit())).append(',').append(r.samples().size()).append(',')
          .append(num(r.min())).append(',').append(num(r.median())).append(',')
          .append(num(r.max())).append(',').append(quote(r.target() == null ? "" : r.target()))
          .append(',').append(r.verdict()).append(',');
      List<String> s = new ArrayList<>();
      r.samples().forEach(v -> s.add(num(v)));
      out.append(quote(String.join(";", s))).append(',').append(quote(r.note())).append('\n');
    }
    return out.toString();
  }

  String json() {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    ObjectNode m = root.putObject("machine");
    synchronized (machine) {
      machine.forEach(m::put);
    }
    ArrayNode list = root.putArray("rows");
    for (Row r : rows()) {
      ObjectNode o = list.addObject();
      o.put("section", r.section()).put("metric", r.metric()).put("unit", r.unit());
      o.put("min", r.min()).put("median", r.median()).put("max", r.max());
      ArrayNode samples = o.putArray("samples");
      r.samples().forEach(samples::add);
      if (r.target() != null) {
        o.put("target", r.target()).put("verdict", r.verdict());
      }
      o.put("note", r.note());
    }
    ObjectNode n = root.putObject("notes");
    synchronized (notes) {
      notes.forEach(n::put);
    }
    try {
      return mapper.writeValueAsString(root) + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String markdown() {
    StringBuilder out = new StringBuilder("# Oncely benchmark results\n\n");
    synchronized (machine) {
      machine.forEach((k, v) -> out.append("- **").append(k).append("**: ").append(v).append('\n'));
    }
    String section = null;
    for (Row r : rows()) {
      if (!r.section().equals(section)) {
        appendNote(out, section);
        section = r.section();
        out.append("\n## ").append(section).append("\n\n")
            .append("| metric | unit | min | median | max | target | verdict |\n")
            .append("|---|---|---:|---:|---:|---|---|\n");
      }
      out.append("| ").append(r.metric()).append(r.note().isEmpty() ? "" : " (" + r.note() + ")")
          .append(" | ").append(r.unit()).append(" | ").append(fmt(r.min())).append(" | ")
          .append(fmt(r.median())).append(" | ").append(fmt(r.max())).append(" | ")
          .append(r.target() == null ? "" : r.target().replace("|", "\\|")).append(" | ")
          .append(r.verdict()).append(" |\n");
    }
    appendNote(out, section);
    return out.toString();
  }

  private void appendNote(StringBuilder out, String section) {
    String text = section == null ? null : notes.get(section);
    if (text != null) {
      out.append('\n').append(text).append('\n');
    }
  }

  /** A figure for people: 3 significant digits, thousands kept whole. */
  static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    double a = Math.abs(v);
    if (a >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    if (a >= 1) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    return String.format(Locale.ROOT, "%.3f", v);
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.6g", v);
  }

  private static String quote(String s) {
    return "\"" + s.replace("\"", "\"\"") + "\"";
  }
}
