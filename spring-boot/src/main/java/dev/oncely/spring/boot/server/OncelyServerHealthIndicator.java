package dev.oncely.spring.boot.server;

import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ReceiptStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code oncelyServer} health: UP while the receipt store answers, with the receipts still
 * {@code processing} (a handler runs, or its owner died and the lease has not run out) and {@code
 * pending} (an effect's outcome is unknown until the app's recovery or an operator settles it),
 * and the age of the oldest pending receipt; DOWN when the store fails or is closed (detail {@code
 * error}). Pending receipts alone never make it DOWN: they are answered {@code 202} by design,
 * and a restart does not settle them. Never a key, scope or payload in the details.
 *
 * <p>Each check is one {@link ReceiptStore#listUnfinished()}, which reads every unfinished
 * receipt: put it behind Actuator's health cache for frequent probes.
 */
public final class OncelyServerHealthIndicator extends AbstractHealthIndicator {
  private final ReceiptStore receipts;
  private final Clock clock;

  /**
   * Reports on {@code receipts}.
   *
   * @param receipts the receipt store checked
   * @param clock the clock ages are measured with
   * @throws NullPointerException if an argument is null
   */
  public OncelyServerHealthIndicator(ReceiptStore receipts, Clock clock) {
    super("the Oncely receipt store failed");
    this.receipts = Objects.requireNonNull(receipts, "receipts");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    List<Receipt> unfinished = receipts.listUnfinished();
    int processing = 0;
    int pending = 0;
    Instant oldestPending = null;
    for (Receipt r : unfinished) {
      if (r.state() == ReceiptState.PROCESSING) {
        processing++;
      } else if (r.state() == ReceiptState.PENDING) {
        pending++;
        if (oldestPending == null || r.createdAt().isBefore(oldestPending)) {
          oldestPending = r.createdAt();
        }
      }
    }
    Duration age = oldestPending == null ? Duration.ZERO
        : Duration.between(oldestPending, clock.instant());
    builder.up()
        .withDetail("processing", processing)
        .withDetail("pending", pending)
        .withDetail("oldestPendingAge", (age.isNegative() ? Duration.ZERO : age).toString());
  }
}
