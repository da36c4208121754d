package dev.oncely.examples.demo;

import java.io.PrintStream;

/**
 * A one-line progress bar redrawn in place on a terminal, or printed at every 10% step when the
 * output is not a terminal (piped or captured).
 */
final class ProgressBar {
  private static final int WIDTH = 40;
  private final PrintStream out;
  private final String label;
  private final boolean terminal;
  private long lastDecile = -1;

  ProgressBar(PrintStream out, String label) {
    this.out = out;
    this.label = label;
    this.terminal = System.console() != null;
  }

  synchronized void show(ChildRun.Progress p, String note) {
    long total = Math.max(1, p.intents());
    int filled = (int) Math.min(WIDTH, p.completed() * WIDTH / total);
    String line = String.format("  %-7s [%s%s] %5d/%d completed  attempts %d  retries %d  %s",
        label, "#".repeat(filled), ".".repeat(WIDTH - filled), p.completed(), p.intents(),
        p.attempts(), p.retries(), note);
    if (terminal) {
      out.print("\r" + line);
      out.flush();
      return;
    }
    long decile = p.completed() * 10 / total;
    if (decile != lastDecile) {
      lastDecile = decile;
      out.println(line);
    }
  }

  synchronized void done(String message) {
    if (terminal) {
      out.println();
    }
    out.println("  " + message);
  }
}
