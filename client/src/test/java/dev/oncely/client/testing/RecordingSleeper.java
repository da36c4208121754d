package dev.oncely.client.testing;

import dev.oncely.client.Sleeper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A sleeper that never waits: it records each asked duration and advances a {@link ManualClock}. */
public final class RecordingSleeper implements Sleeper {
  private final ManualClock clock;
  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

  /** Advances {@code clock} by every asked duration. */
  public RecordingSleeper(ManualClock clock) {
    this.clock = clock;
  }

  @Override
  public void sleep(Duration duration) {
    sleeps.add(duration);
    clock.advance(duration);
  }

  /** The durations asked for, in order. */
  public List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }
}
