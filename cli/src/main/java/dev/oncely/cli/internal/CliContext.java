package dev.oncely.cli.internal;

import java.time.Clock;
import java.util.Map;
import java.util.Objects;

/** What every command reads from its surroundings: the clock, the environment, the store engines. */
public final class CliContext {
  private final Clock clock;
  private final Map<String, String> environment;
  private final StoreEngines engines;

  /** A context; {@code environment} is copied. */
  public CliContext(Clock clock, Map<String, String> environment, StoreEngines engines) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.environment = Map.copyOf(environment);
    this.engines = Objects.requireNonNull(engines, "engines");
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
  public StoreEngines engines() {
    return engines;
  }
}
