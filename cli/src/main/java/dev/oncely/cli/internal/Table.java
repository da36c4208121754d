package dev.oncely.cli.internal;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain-text table: a header row, left-aligned columns two spaces apart, cells cut at a width. */
final class Table {
  private static final int MAX_CELL = 60;

  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... header) {
    this.header = Arrays.asList(header);
  }

  Table row(String... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException("a row has " + header.size() + " cells, got " + cells.length);
    }
    List<String> row = new ArrayList<>();
    for (String cell : cells) {
      String text = cell == null ? "-" : cell.replaceAll("\\s+", " ");
      row.add(text.length() > MAX_CELL ? text.substring(0, MAX_CELL - 3) + "..." : text);
    }
    rows.add(row);
    return this;
  }

  void print(PrintWriter out) {
    int[] widths = new int[header.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = header.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    printRow(out, header, widths);
    for (List<String> row : rows) {
      printRow(out, row, widths);
    }
  }

  private static void printRow(PrintWriter out, List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      line.append(cells.get(i));
      if (i < cells.size() - 1) {
        line.append(" ".repeat(widths[i] - cells.get(i).length() + 2));
      }
    }
    out.println(line);
  }
}
