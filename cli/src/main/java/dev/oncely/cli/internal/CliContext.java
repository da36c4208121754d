package dev.oncely.cli.internal;

import java.time.Clock;
import java.util.Map;
import java.util.Objects;

/** What every command reads from its surroundings: the clock, the environment, the store engines. */
public final class CliContext {
  private final Clock clock;
  private final Map<String, String> environment;
  private final StoreOpeners openers;

  /** A context; {@code environment} is copied. */
  public CliContext(Clock clock, Map<String, String> environment, StoreOpeners openers) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.environment = Map.copyOf(environment);
    this.openers = Objects.requireNonNull(openers, "openers");
  }

  /** The clock ages and notes are measured with. */
  public Clock clock() {
    return clock;
  }

  /** The value of environment variable {@code name}, or null. */
  public String env(String name) {
    return environment.get(name);
  }

  /** The store engines. */
  public StoreOpeners openers() {
    return openers;
  }
}
