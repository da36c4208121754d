package dev.oncely.examples.server;

/**
 * The faults a {@link ReferenceServer} can inject, each named after what the client observes; all
 * but {@link #LATENCY} are testing-kit {@link dev.oncely.testing.Fault}s.
 * {@link #specName()} is the name used in the {@link FaultPlan#parse(String) faults spec} and in
 * the {@code faults} object of {@code GET /stats}.
 */
public enum FaultKind {
  /**
   * The server commits the outcome (effect created, response stored) and then closes the
   * connection without answering: the client sees an EOF or reset and cannot know the effect
   * happened.
   */
  DROP("drop"),
  /**
   * The server commits the outcome and then holds the connection without answering for the
   * plan's stall duration (longer than any sane client timeout), then closes it.
   */
  STALL("stall"),
  /** The server closes the connection before handling the request: no effect happens. */
  REFUSE("refuse"),
  /** The server waits the plan's latency before handling the request. */
  LATENCY("latency"),
  /**
   * The server answers {@code 503} with {@code Retry-After: 1} before handling the request, for a
   * burst of consecutive requests; no effect happens.
   */
  BURST_503("burst503");

  private final String specName;

  FaultKind(String specName) {
    this.specName = specName;
  }

  /** The name of this fault in the faults spec and in {@code /stats}. */
  public String specName() {
    return specName;
  }
}
