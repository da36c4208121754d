package dev.oncely.server.internal;

import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.Receipt;
import java.time.Duration;
import java.time.Instant;

/**
 * The server's one decision table: the state of the receipt that holds a key, and the repeat's
 * payload, give what the repeat gets ({@code docs/server.md}, "Decision table"). The fingerprint
 * is compared first, in every state, so another payload never reads, waits on or takes over the
 * original.
 *
 * <table>
 *   <caption>State x repeat</caption>
 *   <tr><th>receipt</th><th>same payload</th></tr>
 *   <tr><td>COMPLETED</td><td>the stored answer</td></tr>
 *   <tr><td>PROCESSING, lease alive</td><td>in progress (409 + Retry-After, or a bounded
 *       wait)</td></tr>
 *   <tr><td>PROCESSING, lease ran out, effects committed</td><td>take over, complete from the
 *       recovery point</td></tr>
 *   <tr><td>PROCESSING, lease ran out, endpoint safe to re-run</td><td>take over and run</td></tr>
 *   <tr><td>PROCESSING, lease ran out, otherwise</td><td>take over as pending, ask the recovery
 *       hook</td></tr>
 *   <tr><td>PENDING</td><td>ask the recovery hook when one is set, else 202</td></tr>
 *   <tr><td>RELEASED</td><td>take over and run</td></tr>
 * </table>
 */
public final class RepeatRules {
  /**
   * The {@code Retry-After} of an in-progress answer: one second, the smallest the header can
   * say. Not the lease's remainder: the lease is renewed while the handler runs, and most
   * handlers finish long before it would run out, so a repeat told to wait for it would wait
   * for nothing.
   */
  public static final Duration IN_PROGRESS_RETRY_AFTER = Duration.ofSeconds(1);

  private RepeatRules() {}

  /**
   * What a request with {@code fingerprint} gets from {@code receipt} at {@code now}.
   *
   * @param recoverySet whether the app configured a {@link dev.oncely.server.ReceiptRecovery}
   */
  public static Repeat decide(Receipt receipt, String fingerprint, Instant now,
      EndpointPolicy policy, boolean recoverySet) {
    if (!receipt.fingerprint().equals(fingerprint)) {
      return new Repeat.Mismatch();
    }
    return switch (receipt.state()) {
      case COMPLETED -> new Repeat.Replay(receipt.answer());
      case RELEASED -> new Repeat.TakeOverAndRun();
      case PENDING -> recoverySet ? new Repeat.Recover() : new Repeat.Pending();
      case PROCESSING -> {
        if (!receipt.leaseExpiredAt(now)) {
          yield new Repeat.InProgress(IN_PROGRESS_RETRY_AFTER);
        }
        if (receipt.effectsCommitted()) {
          yield new Repeat.TakeOverAndRecover();
        }
        yield policy.rerunSafe() ? new Repeat.TakeOverAndRun() : new Repeat.TakeOverAsPending();
      }
    };
  }

}
