package dev.oncely.examples.demo;

import dev.oncely.examples.server.FaultKind;
import dev.oncely.examples.server.ServerStats;
import java.time.Duration;
import java.util.Objects;

/**
 * What one client did to one server in the demo, as the client reports it ({@code completed},
 * {@code pending}) and as the server counted it (effects, duplicates, requests, faults).
 *
 * @param client the client's name in the table
 * @param intents payment intents the client was asked for
 * @param completed intents the client saw reach a final answer
 * @param pending intents whose outcome the client still reports as unknown
 * @param server the server's counters once the client was done
 * @param killedAt payments created when the client's JVM was killed, or -1 if it was not
 * @param wall wall time of the client's whole run, restarts included
 */
public record RunSummary(String client, long intents, long completed, long pending,
    ServerStats server, long killedAt, Duration wall) {
  /** Checks the components are present. */
  public RunSummary {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(wall, "wall");
  }

  /** Payments the server created. */
  public long effects() {
    return server.effects();
  }

  /** Payments beyond the first for one order: the customer was charged again. */
  public long duplicates() {
    return server.duplicates();
  }

  /** Intents for which the server created no payment at all. */
  public long lost() {
    return Math.max(0, intents - server.effectsPerOrder().size());
  }

  /** Requests the server saw ({@code POST}s and status polls, faulted ones included). */
  public long attempts() {
    return server.requests();
  }

  /** {@code POST}s beyond the first per intent. */
  public long retries() {
    return Math.max(0, server.requests() - server.polls() - intents);
  }

  /**
   * Retries no injected fault or {@code 409} explains: resends of the intents in flight when the
   * client was killed, and attempts that timed out on an answer that was merely slow.
   */
  public long otherRetries() {
    long explained = server.status409();
    for (FaultKind kind : FaultKind.values()) {
      if (kind != FaultKind.LATENCY) {
        explained += server.faults(kind);
      }
    }
    return Math.max(0, retries() - explained);
  }

  /** How often the server injected {@code kind}; each one leaves the client to resend or give up. */
  public long faults(FaultKind kind) {
    return server.faults(kind);
  }
}
