package dev.oncely.cli.internal;

import static dev.oncely.cli.internal.Redaction.line;
import static dev.oncely.cli.internal.Redaction.seconds;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoredResponse;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;

/**
 * One receipt as an operator sees it: the key only as its short hash, and the stored answer's
 * header values and body redacted unless {@code reveal}. The reason, the reference and the lease
 * owner are printed as stored: the server writes reasons in its own words, and the reference is
 * what the app chose to name its effect by (an order id).
 */
final class ReceiptView {
  private final Receipt receipt;
  private final Instant now;
  private final Redaction redaction;

  ReceiptView(Receipt receipt, Instant now, boolean reveal) {
    this.receipt = receipt;
    this.now = now;
    this.redaction = new Redaction(reveal);
  }

  String age() {
    return Ages.format(Duration.between(receipt.createdAt(), now));
  }

  String scopeAndOperation() {
    return receipt.id().scope() + "/" + receipt.id().operation();
  }

  /** The lease in a few words: time left, or how long ago it ran out; "-" when none is held. */
  String lease() {
    Instant until = receipt.leaseUntil();
    if (receipt.state() != ReceiptState.PROCESSING || until == null) {
      return "-";
    }
    return until.isAfter(now) ? Ages.format(Duration.between(now, until)) + " left"
        : "ran out " + Ages.format(Duration.between(until, now)) + " ago";
  }

  /** Whether a processing receipt's owner stopped renewing: the next repeat takes it over. */
  boolean leaseRanOut() {
    return receipt.state() == ReceiptState.PROCESSING && receipt.leaseExpiredAt(now);
  }

  /** The fields {@code receipts list --json} prints. */
  ObjectNode summaryJson() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("keyHash", receipt.id().safeKey());
    o.put("scope", receipt.id().scope());
    o.put("operation", receipt.id().operation());
    o.put("state", receipt.state().name());
    o.put("reason", receipt.reason());
    o.put("reference", receipt.reference());
    o.put("effectsCommitted", receipt.effectsCommitted());
    o.put("leaseOwner", receipt.leaseOwner());
    o.put("leaseUntil", receipt.leaseUntil() == null ? null : receipt.leaseUntil().toString());
    o.put("leaseRanOut", leaseRanOut());
    o.put("ageSeconds", Math.max(0, Duration.between(receipt.createdAt(), now).getSeconds()));
    o.put("runs", receipt.runs());
    o.put("statusToken", receipt.statusToken());
    o.put("createdAt", receipt.createdAt().toString());
    o.put("updatedAt", receipt.updatedAt().toString());
    o.put("expiresAt", receipt.expiresAt().toString());
    o.put("notes", receipt.notes().size());
    return o;
  }

  /** Every field, for {@code receipts show --json}. */
  ObjectNode detailJson() {
    ObjectNode o = summaryJson();
    if (redaction.reveals()) {
      o.put("key", receipt.id().key());
    }
    o.put("revision", receipt.revision());
    o.put("fingerprint", receipt.fingerprint());
    StoredResponse answer = receipt.answer();
    if (answer == null) {
      o.putNull("answer");
    } else {
      ObjectNode a = o.putObject("answer");
      a.put("status", answer.status());
      a.set("headers", redaction.headersJson(answer.headers()));
      a.set("body", redaction.bodyJson(answer.body(), answer.header("Content-Type")));
    }
    ArrayNode notes = o.putArray("auditTrail");
    for (IntentRecord.Note note : receipt.notes()) {
      notes.addObject().put("at", note.at().toString()).put("author", note.author())
          .put("text", note.text());
    }
    return o;
  }

  /** The human-readable form of {@link #detailJson()}. */
  void printDetail(PrintWriter out) {
    line(out, "key hash", receipt.id().safeKey());
    if (redaction.reveals()) {
      line(out, "key", receipt.id().key());
    }
    line(out, "scope/operation", scopeAndOperation());
    line(out, "state", receipt.state().name() + " (" + meaning() + ")");
    line(out, "reason", receipt.reason());
    line(out, "reference", receipt.reference());
    line(out, "effects", receipt.effectsCommitted()
        ? "committed (the handler recorded it): never run again" : "not recorded as committed");
    if (receipt.state() == ReceiptState.PROCESSING) {
      line(out, "lease", receipt.leaseOwner() + ", until " + seconds(receipt.leaseUntil())
          + " (" + lease() + ")" + (leaseRanOut() ? ": the next repeat takes it over" : ""));
    } else {
      line(out, "last owner", receipt.leaseOwner());
    }
    line(out, "age", age() + " (created " + seconds(receipt.createdAt()) + ")");
    line(out, "updated", seconds(receipt.updatedAt()) + " (revision " + receipt.revision() + ")");
    line(out, "handler runs", Integer.toString(receipt.runs()));
    line(out, "status token", receipt.statusToken());
    line(out, "fingerprint", receipt.fingerprint());
    line(out, "kept until", seconds(receipt.expiresAt())
        + (receipt.state().isSettled() || receipt.state() == ReceiptState.RELEASED
            ? " (then purged)" : " (unfinished receipts are never purged)"));
    StoredResponse answer = receipt.answer();
    if (answer == null) {
      line(out, "answer", "none");
    } else {
      line(out, "answer", Integer.toString(answer.status()));
      redaction.printHeaders(out, "  ", answer.headers());
      line(out, "answer body", redaction.bodyText(answer.body(), answer.header("Content-Type")));
    }
    if (receipt.notes().isEmpty()) {
      line(out, "audit trail", "none");
    } else {
      line(out, "audit trail", receipt.notes().size()
          + (receipt.notes().size() == 1 ? " note" : " notes"));
      for (IntentRecord.Note note : receipt.notes()) {
        out.println("  " + seconds(note.at()) + "  " + note.author() + ": " + note.text());
      }
    }
  }

  private String meaning() {
    return switch (receipt.state()) {
      case PROCESSING -> leaseRanOut() ? "its owner stopped renewing the lease"
          : "a handler runs under a lease";
      case PENDING -> "the effect's outcome is unknown; repeats get 202";
      case COMPLETED -> "repeats get the stored answer";
      case RELEASED -> "the next repeat runs the handler";
    };
  }
}
