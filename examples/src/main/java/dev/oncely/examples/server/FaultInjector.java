package dev.oncely.examples.server;

import java.util.Random;

/**
 * Draws the faults of each request from a seeded {@link Random}. Every request draws the same
 * number of values in the same order, so a sequential client sees the same faults for the same
 * seed. Thread-safe.
 */
final class FaultInjector {
  private final FaultPlan plan;
  private final Random random;
  private int burstLeft;

  FaultInjector(FaultPlan plan) {
    this.plan = plan;
    this.random = new Random(plan.seed());
  }

  FaultPlan plan() {
    return plan;
  }

  synchronized Decision next() {
    boolean refuse = random.nextDouble() < plan.refuse();
    boolean burstStarts = random.nextDouble() < plan.burst503();
    boolean drop = random.nextDouble() < plan.drop();
    boolean stall = random.nextDouble() < plan.stall();
    if (refuse) {
      return Decision.REFUSE;
    }
    if (burstLeft > 0) {
      burstLeft--;
      return Decision.UNAVAILABLE;
    }
    if (burstStarts) {
      burstLeft = plan.burstLength() - 1;
      return Decision.UNAVAILABLE;
    }
    if (drop) {
      return Decision.DROP_AFTER_COMMIT;
    }
    return stall ? Decision.STALL_AFTER_COMMIT : Decision.NONE;
  }

  /** What to do to one request. */
  enum Decision {
    NONE,
    REFUSE,
    UNAVAILABLE,
    DROP_AFTER_COMMIT,
    STALL_AFTER_COMMIT
  }
}
