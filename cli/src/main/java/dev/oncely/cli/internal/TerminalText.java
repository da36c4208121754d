package dev.oncely.cli.internal;

import java.io.FilterWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;

/**
 * Output that cannot drive the operator's terminal: record text (notes, reasons, headers) comes
 * from apps, servers and other operators, so every control character but line feed and tab is
 * printed as a visible escape ({@code \x1b}) instead of reaching the terminal raw.
 */
final class TerminalText extends FilterWriter {
  private TerminalText(Writer out) {
    super(out);
  }

  /** {@code out}, with control characters escaped. */
  static PrintWriter safe(PrintWriter out) {
    return new PrintWriter(new TerminalText(out), true);
  }

  @Override
  public void write(int c) throws IOException {
    if (c == '\n' || c == '\t' || !Character.isISOControl(c)) {
      out.write(c);
    } else {
      out.write(String.format("\\x%02x", c));
    }
  }

  @Override
  public void write(char[] chars, int offset, int length) throws IOException {
    for (int i = offset; i < offset + length; i++) {
      write(chars[i]);
    }
  }

  @Override
  public void write(String text, int offset, int length) throws IOException {
    for (int i = offset; i < offset + length; i++) {
      write(text.charAt(i));
    }
  }
}
