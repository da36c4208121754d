package dev.oncely.server.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds a handler inside its run until the test opens it, deaf to interrupts, as a stuck or
 * frozen thread is: closing its inbox does not end the run.
 */
public final class Gate {
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch open = new CountDownLatch(1);

  /** In the handler: says it is inside, then waits until {@link #open()}. */
  public void pass() {
    entered.countDown();
    while (true) {
      try {
        open.await();
        return;
      } catch (InterruptedException e) {
        // A stuck thread does not notice; nor is the flag kept, so the run's late write of its
        // end goes to the store as any write does.
      }
    }
  }

  /** Waits until a handler is inside. */
  public void awaitEntered() throws InterruptedException {
    assertThat(entered.await(30, TimeUnit.SECONDS)).as("a handler entered the gate").isTrue();
  }

  /** Lets the handler inside (and any later one) go on. */
  public void open() {
    open.countDown();
  }
}
