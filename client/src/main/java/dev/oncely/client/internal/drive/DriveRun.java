package dev.oncely.client.internal.drive;

import dev.oncely.client.internal.pacing.BlockingWait;
import dev.oncely.client.internal.pacing.DriveTimer;
import dev.oncely.client.NetworkGate;
import dev.oncely.client.Sleeper;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

/**
 * Runs a {@link DriveLoop} for its {@link Drive}: step, wait, step, until the drive ends. The wait
 * between steps is a wake-up on the process's {@link DriveTimer} (or the network gate's opening),
 * never a sleep: {@link #async} gives its thread back during every wait and runs the next step on
 * the owner's executor; {@link #here} runs every step on the calling thread, which is the contract
 * of a blocking call ({@code execute()}, an OkHttp call through the interceptor), and blocks it
 * only until the wake-up. A stop (the owner closing, the call canceled) ends a wait at once. A
 * {@link Sleeper} other than {@link Sleeper#SYSTEM} (a test seam that advances a test clock) is
 * called instead of the timer, on the thread that runs the drive.
 */
public final class DriveRun {
  private final Drive drive;
  private final DriveLoop loop;
  private final Wire wire;
  private final Sleeper sleeper;
  private final NetworkGate gate;

  private DriveRun(Drive drive, DriveLoop loop, Wire wire, DriveSettings settings) {
    this.drive = drive;
    this.loop = loop;
    this.wire = wire;
    this.sleeper = settings.sleeper();
    this.gate = settings.gate();
    loop.beforeLastWrite(drive::markEnding);
  }

  /** Runs {@code loop} to its end on the calling thread, finishes {@code drive}, returns the end. */
  public static DriveEnd here(Drive drive, DriveLoop loop, Wire wire, DriveSettings settings) {
    DriveRun run = new DriveRun(drive, loop, wire, settings);
    try {
      DriveLoop.Next next = loop.start();
      while (!(next instanceof DriveLoop.Ended)) {
        next = run.blockUntilWoken(next) ? loop.resume() : new DriveLoop.Ended(loop.stop(run.why()));
      }
      DriveEnd end = ((DriveLoop.Ended) next).end();
      drive.finish(end);
      return end;
    } catch (RuntimeException | Error e) {
      drive.fail(e);
      throw e;
    }
  }

  /**
   * Runs {@code loop}'s first step on the calling thread, each later one on {@code executor} when
   * its wait is over; {@code drive}'s future completes with the end.
   */
  public static void async(Drive drive, DriveLoop loop, Wire wire, DriveSettings settings,
      Executor executor) {
    new DriveRun(drive, loop, wire, settings).step(loop::start, executor);
  }

  private void step(Supplier<DriveLoop.Next> action, Executor executor) {
    try {
      DriveLoop.Next next = action.get();
      if (next instanceof DriveLoop.Ended ended) {
        drive.finish(ended.end());
        return;
      }
      arm(next, executor).whenComplete((go, error) -> {
        Supplier<DriveLoop.Next> after = Boolean.TRUE.equals(go) && wire.stopped() == null
            ? loop::resume : () -> new DriveLoop.Ended(loop.stop(why()));
        Runnable resume = () -> step(after, executor);
        try {
          executor.execute(resume);
        } catch (RejectedExecutionException closing) {
          // The owner's executor is shutting down: end the drive here, without another attempt.
          step(() -> new DriveLoop.Ended(loop.stop(why())), Runnable::run);
        }
      });
    } catch (RuntimeException | Error e) {
      drive.fail(e);
    }
  }

  /** The wake-up of the wait {@code next} asks for. */
  private CompletableFuture<Boolean> arm(DriveLoop.Next next, Executor executor) {
    CompletableFuture<Boolean> wake = drive.arm();
    if (next instanceof DriveLoop.WaitForGate gated) {
      gate.whenOpen(() -> wake.complete(true));
      cancelWhenWoken(wake, DriveTimer.schedule(gated.limit(), () -> wake.complete(true)));
    } else {
      Duration delay = ((DriveLoop.Wait) next).delay();
      if (sleeper == Sleeper.SYSTEM) {
        cancelWhenWoken(wake, DriveTimer.schedule(delay, () -> wake.complete(true)));
      } else {
        executor.execute(() -> wake.complete(sleepWith(delay)));
      }
    }
    return wake;
  }

  private static void cancelWhenWoken(CompletableFuture<Boolean> wake, ScheduledFuture<?> timer) {
    wake.whenComplete((go, e) -> timer.cancel(false));
  }

  private boolean sleepWith(Duration delay) {
    try {
      sleeper.sleep(delay);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Blocks this thread until the wait {@code next} asks for is over (true) or the drive must stop
   * (false: a stop, a canceled call, an interrupt).
   */
  private boolean blockUntilWoken(DriveLoop.Next next) {
    CompletableFuture<Boolean> wake = arm(next, Runnable::run);
    return BlockingWait.await(wake, wire.stopsUnannounced() ? wire::stopped : null)
        == BlockingWait.Result.DONE
        && !wake.isCompletedExceptionally() && wake.join() && wire.stopped() == null;
  }

  private String why() {
    String stop = drive.stopRequested();
    if (stop != null) {
      return stop;
    }
    String wired = wire.stopped();
    return wired != null ? wired : "the waiting thread was interrupted";
  }
}
