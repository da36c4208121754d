package dev.oncely.client.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The failures of one drive or call, so none is lost: when the last one is reported, the earlier
 * ones ride along as suppressed exceptions (at most {@value #KEPT}, the newest kept).
 */
public final class Failures {
  static final int KEPT = 16;
  private final List<IOException> failures = new ArrayList<>();

  public void add(IOException failure) {
    if (failures.size() == KEPT) {
      failures.remove(0);
    }
    failures.add(failure);
  }

  /** Adds every recorded failure other than {@code reported} to it as suppressed; returns it. */
  public <T extends Throwable> T attachTo(T reported) {
    if (reported != null) {
      for (IOException earlier : failures) {
        if (earlier != reported) {
          reported.addSuppressed(earlier);
        }
      }
    }
    return reported;
  }
}
