package dev.oncely.examples.demo;

/**
 * The demo could not run to the end: a child JVM failed to start, exited with an unexpected code,
 * printed no summary, or ran too long. The message says which step and includes the child's last
 * stderr lines.
 */
public final class DemoFailedException extends Exception {
  /** @param message the step that failed and what was seen */
  public DemoFailedException(String message) {
    super(message);
  }
}
