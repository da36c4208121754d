package dev.oncely.examples.demo;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Objects;

/**
 * A progress line on stderr. On a terminal it redraws one line in place with a carriage return;
 * otherwise (piped, CI) it prints a plain line when a phase starts and each time another tenth of
 * its work is done, so logs stay short and readable. Thread-safe.
 *
 * <pre>
 * SDK run      [##########....................]  352/1000   6.1s  req 431  SIGKILL at 401
 * </pre>
 */
public final class ProgressBar {
  /** Width of the bar between the brackets, in characters. */
  public static final int BAR_WIDTH = 30;

  private final PrintStream err;
  private final boolean interactive;
  private int lastWidth;
  private String lastLine = "";
  private String lastLabel;
  private long phaseStart;
  private long lastTenth = -1;

  /**
   * @param interactive redraw in place (a terminal) or print plain lines (a log)
   */
  public ProgressBar(PrintStream err, boolean interactive) {
    this.err = Objects.requireNonNull(err, "err");
    this.interactive = interactive;
  }

  /**
   * A bar that redraws in place when this JVM has a console and the {@code CI} environment
   * variable is not set, and prints plain lines otherwise.
   */
  public static ProgressBar forStderr(PrintStream err) {
    return new ProgressBar(err, System.console() != null && System.getenv("CI") == null);
  }

  /** Whether the bar redraws in place. */
  public boolean interactive() {
    return interactive;
  }

  /**
   * Shows {@code done} of {@code total} for the phase {@code label}, with a short {@code note}.
   */
  public synchronized void update(String label, long done, long total, String note) {
    boolean newPhase = !label.equals(lastLabel);
    if (newPhase) {
      lastLabel = label;
      phaseStart = System.nanoTime();
    }
    String line = render(label, done, total, note, elapsedMillis());
    if (interactive) {
      if (!line.equals(lastLine)) {
        redraw(line);
      }
      return;
    }
    long tenth = total <= 0 ? 10 : Math.min(10, done * 10 / total);
    if (newPhase || tenth > lastTenth) {
      err.println(line);
      lastTenth = tenth;
    }
  }

  /** Shows the final state of the phase and ends its line. */
  public synchronized void finish(String label, long done, long total, String note) {
    if (!label.equals(lastLabel)) {
      phaseStart = System.nanoTime();
    }
    String line = render(label, done, total, note, elapsedMillis());
    if (interactive) {
      redraw(line);
      err.println();
    } else {
      err.println(line);
    }
    err.flush();
    lastWidth = 0;
    lastLine = "";
    lastLabel = null;
    lastTenth = -1;
  }

  /** Prints a message on a line of its own, ending the line being redrawn first. */
  public synchronized void message(String text) {
    if (interactive && lastWidth > 0) {
      err.println();
      lastWidth = 0;
      lastLine = "";
    }
    err.println(text);
    err.flush();
  }

  private void redraw(String line) {
    StringBuilder sb = new StringBuilder("\r").append(line);
    for (int i = line.length(); i < lastWidth; i++) {
      sb.append(' ');
    }
    err.print(sb);
    err.flush();
    lastWidth = line.length();
    lastLine = line;
  }

  private long elapsedMillis() {
    return (System.nanoTime() - phaseStart) / 1_000_000;
  }

  /** The line for a state, without a line end. */
  static String render(String label, long done, long total, String note, long elapsedMs) {
    long shown = Math.max(0, Math.min(done, total));
    int filled = total <= 0 ? BAR_WIDTH : (int) (shown * BAR_WIDTH / total);
    StringBuilder bar = new StringBuilder(BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++) {
      bar.append(i < filled ? '#' : '.');
    }
    String count = String.format("%" + String.valueOf(total).length() + "d/%d", done, total);
    return String.format(Locale.ROOT, "%-18s [%s] %s %6.1fs  %s", label, bar, count,
        elapsedMs / 1000.0, note).stripTrailing();
  }
}
