package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code oncelyWebhooks} health: UP while the inbox's store answers, with the messages
 * {@code queued} (waiting for a worker, or for their backoff after a failure), {@code processing}
 * (a handler runs, or its instance died and the lease has not run out), {@code dead}
 * (dead-lettered: an operator replays them) and the age of the oldest queued message; DOWN when
 * the store fails or is closed (detail {@code error}).
 *
 * <p>Dead-lettered messages never make it DOWN: a restart does not handle them (the instance is
 * fine, an event is not), and a probe that restarts the instance over one poison event would take
 * the receiver down for every other event. Alert on the count (here, or {@code
 * oncely.inbox.unfinished{state="dead"}}) instead. Never a message id or payload in the details.
 *
 * <p>Each check is one {@link Inbox#listUnfinished()}, which reads every unfinished message: put
 * it behind Actuator's health cache for frequent probes.
 */
public final class OncelyWebhooksHealthIndicator extends AbstractHealthIndicator {
  private final Inbox inbox;
  private final Clock clock;

  /**
   * Reports on {@code inbox}.
   *
   * @param inbox the inbox checked
   * @param clock the clock ages are measured with
   * @throws NullPointerException if an argument is null
   */
  public OncelyWebhooksHealthIndicator(Inbox inbox, Clock clock) {
    super("the Oncely inbox store failed");
    this.inbox = Objects.requireNonNull(inbox, "inbox");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    int queued = 0;
    int processing = 0;
    int dead = 0;
    Instant oldestQueued = null;
    for (InboxMessage m : inbox.listUnfinished()) {
      if (m.state() == InboxState.QUEUED) {
        queued++;
        if (oldestQueued == null || m.receivedAt().isBefore(oldestQueued)) {
          oldestQueued = m.receivedAt();
        }
      } else if (m.state() == InboxState.PROCESSING) {
        processing++;
      } else if (m.state() == InboxState.DEAD) {
        dead++;
      }
    }
    Duration age = oldestQueued == null ? Duration.ZERO
        : Duration.between(oldestQueued, clock.instant());
    builder.up()
        .withDetail("queued", queued)
        .withDetail("processing", processing)
        .withDetail("dead", dead)
        .withDetail("oldestQueuedAge", (age.isNegative() ? Duration.ZERO : age).toString());
  }
}
