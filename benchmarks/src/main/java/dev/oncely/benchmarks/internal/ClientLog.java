package dev.oncely.benchmarks.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.logging.FileHandler;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Where the SDK's default listener writes during a run: the {@code dev.oncely.client} logger (at
 * its default level, {@code INFO}: completions are {@code DEBUG}, so a healthy run writes little,
 * and every rejection or warning a line) goes to a file, as a service's logs do, instead of the
 * console, which would measure the terminal. Without a logging bridge the
 * JDK backs {@code System.Logger} with {@code java.util.logging}, so this is the handler the
 * default {@code LoggingListener} ends up in.
 */
public final class ClientLog implements AutoCloseable {
  private static final String NAME = "dev.oncely.client";
  /** Held strongly: java.util.logging keeps loggers only weakly, and would drop the handler. */
  private final Logger logger = Logger.getLogger(NAME);
  private final FileHandler handler;
  private final Path file;

  private ClientLog(Path file) {
    this.file = file;
    try {
      handler = new FileHandler(file.toString(), 16 << 20, 1, false);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the client log " + file, e);
    }
    handler.setFormatter(new SimpleFormatter());
    logger.addHandler(handler);
    logger.setUseParentHandlers(false);
  }

  /** Routes the client logger to {@code file} (replaced) until {@link #close()}. */
  public static ClientLog toFile(Path file) {
    return new ClientLog(file);
  }

  /** The file the lines go to. */
  public Path file() {
    return file;
  }

  @Override
  public void close() {
    logger.removeHandler(handler);
    logger.setUseParentHandlers(true);
    handler.close();
  }
}
