package dev.oncely.examples.server;

/**
 * Thrown by {@link FaultPlan#parse(String)} when a faults spec cannot be parsed. The message and
 * {@link #item()} name the offending item, so a command line can point at it.
 */
public final class FaultSpecException extends IllegalArgumentException {
  private final String item;

  FaultSpecException(String item, String problem) {
    super("bad faults item '" + item + "': " + problem);
    this.item = item;
  }

  /** The item of the spec that was refused, exactly as written (trimmed). */
  public String item() {
    return item;
  }
}
