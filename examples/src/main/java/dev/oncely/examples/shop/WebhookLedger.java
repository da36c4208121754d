package dev.oncely.examples.shop;

import dev.oncely.server.inbox.InboxMessage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The shop's business effect of a webhook event: one row per (source, event id) in table {@code
 * webhook_events} of the shop's SQLite ledger (beside the payments, on the {@link PaymentLedger}'s
 * connection), under a {@code UNIQUE} constraint.
 *
 * <p><b>At least once, deduplicated.</b> The inbox runs a handler at least once per event, and
 * again only after a run that did not finish: a crash between this commit and the inbox's record
 * of the run, or a frozen run whose lease was taken over. Such a run finds the event's row and
 * only counts itself ({@code runs} + 1), so the effect is made once. Nothing here relies on the
 * order events arrive in.
 *
 * <p>Thread-safe: every call is one transaction of the ledger.
 */
final class WebhookLedger {
  private static final String SCHEMA = "CREATE TABLE IF NOT EXISTS webhook_events ("
      + " source TEXT NOT NULL,"
      + " event_id TEXT NOT NULL,"
      + " type TEXT,"
      + " runs INTEGER NOT NULL,"
      + " received_at INTEGER NOT NULL,"
      + " handled_at INTEGER NOT NULL,"
      + " UNIQUE (source, event_id))";

  private final PaymentLedger ledger;
  private final Clock clock;

  private WebhookLedger(PaymentLedger ledger, Clock clock) {
    this.ledger = ledger;
    this.clock = clock;
  }

  /**
   * The webhook events of {@code ledger}, whose table is created if it is missing.
   *
   * @throws PaymentLedger.LedgerException if SQLite cannot create it
   */
  static WebhookLedger on(PaymentLedger ledger, Clock clock) {
    ledger.transaction("creating the webhook events' table", db -> {
      try (Statement st = db.createStatement()) {
        return st.executeUpdate(SCHEMA);
      }
    });
    return new WebhookLedger(ledger, clock);
  }

  /**
   * Makes the effect of {@code event} in one transaction: its row, or one more run on the row it
   * has.
   *
   * @return whether this call made the effect (false: a repeated run found it made)
   * @throws PaymentLedger.LedgerException if SQLite failed; nothing was committed, and the inbox
   *     runs the event again after a backoff
   */
  boolean apply(InboxMessage event) {
    return ledger.transaction("the webhook event's effect", db -> {
      try (PreparedStatement in = db.prepareStatement("INSERT INTO webhook_events(source,"
          + " event_id, type, runs, received_at, handled_at) VALUES (?, ?, ?, 1, ?, ?)"
          + " ON CONFLICT(source, event_id) DO UPDATE SET runs = runs + 1")) {
        in.setString(1, event.source());
        in.setString(2, event.messageId());
        in.setString(3, event.type());
        in.setLong(4, event.receivedAt().toEpochMilli());
        in.setLong(5, clock.millis());
        in.executeUpdate();
      }
      try (PreparedStatement st = db.prepareStatement("SELECT runs FROM webhook_events"
          + " WHERE source = ? AND event_id = ?")) {
        st.setString(1, event.source());
        st.setString(2, event.messageId());
        try (ResultSet rs = st.executeQuery()) {
          return rs.next() && rs.getLong(1) == 1;
        }
      }
    });
  }

  /** The events handled: in total, per source, and handler runs per event. */
  Counts counts() {
    return ledger.transaction("reading the webhook events", db -> {
      long handled = 0;
      long runs = 0;
      Map<String, Long> perSource = new TreeMap<>();
      Map<String, Long> runsPerEvent = new TreeMap<>();
      try (Statement st = db.createStatement();
          ResultSet rs = st.executeQuery("SELECT source, event_id, runs FROM webhook_events")) {
        while (rs.next()) {
          handled++;
          runs += rs.getLong(3);
          perSource.merge(rs.getString(1), 1L, Long::sum);
          runsPerEvent.put(rs.getString(1) + "/" + rs.getString(2), rs.getLong(3));
        }
      }
      return new Counts(handled, runs, perSource, runsPerEvent);
    });
  }

  /**
   * Deletes every event's effect.
   *
   * @return how many were deleted
   */
  int reset() {
    return ledger.transaction("the reset of the webhook events", db -> {
      try (Statement st = db.createStatement()) {
        return st.executeUpdate("DELETE FROM webhook_events");
      }
    });
  }

  /**
   * What {@link #counts()} returns.
   *
   * @param handled events whose effect is made
   * @param runs handler runs that reached the ledger; above {@code handled} when a run was
   *     repeated
   * @param perSource events handled per source, sorted
   * @param runsPerEvent handler runs per {@code source/event id}, sorted: 1 for an event the inbox
   *     ran once
   */
  record Counts(long handled, long runs, Map<String, Long> perSource,
      Map<String, Long> runsPerEvent) {
    Counts {
      perSource = Collections.unmodifiableMap(new TreeMap<>(perSource));
      runsPerEvent = Collections.unmodifiableMap(new TreeMap<>(runsPerEvent));
    }
  }
}
