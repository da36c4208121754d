package dev.oncely.cli.internal;

import static dev.oncely.cli.internal.Redaction.line;
import static dev.oncely.cli.internal.Redaction.seconds;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoredResponse;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;

/**
 * One record as an operator sees it. Keys appear only as their short hash, and header values
 * (a stored {@code Location} too), bodies and the status URL the server named are redacted, unless
 * {@code reveal} is set: a URL the server sent can hold an order id or a signed token. The reason
 * is printed as stored; the client writes reasons without any value the server sent.
 */
final class RecordView {
  /** What {@code show} prints for a finished record's request body, before its digest. */
  static final String DROPPED_BODY = "(dropped when the intent finished; sha256 ";

  private final IntentRecord record;
  private final Instant now;
  private final boolean reveal;
  private final Redaction redaction;

  RecordView(IntentRecord record, Instant now, boolean reveal) {
    this.record = record;
    this.now = now;
    this.reveal = reveal;
    this.redaction = new Redaction(reveal);
  }

  String age() {
    return Ages.format(Duration.between(record.createdAt(), now));
  }

  /** Whether a resend could reach a server that already forgot the key. */
  boolean pastKeyRetention() {
    return !now.isBefore(record.expiresAt());
  }

  String scopeAndOperation() {
    return record.id().scope() + "/" + record.id().operation();
  }

  String next() {
    Instant next = record.nextAttemptAt();
    if (next == null) {
      return "-";
    }
    return next.isAfter(now) ? "in " + Ages.format(Duration.between(now, next)) : "due";
  }

  /** The fields {@code list --json} prints. */
  ObjectNode summaryJson() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("keyHash", record.id().safeKey());
    o.put("scope", record.id().scope());
    o.put("operation", record.id().operation());
    o.put("businessId", record.businessId());
    o.put("state", record.state().name());
    o.put("reason", record.reason());
    o.put("ageSeconds", Math.max(0, Duration.between(record.createdAt(), now).getSeconds()));
    o.put("attempts", record.attempts());
    o.put("createdAt", record.createdAt().toString());
    o.put("updatedAt", record.updatedAt().toString());
    o.put("nextAttemptAt", record.nextAttemptAt() == null ? null : record.nextAttemptAt().toString());
    o.put("expiresAt", record.expiresAt().toString());
    o.put("pastKeyRetention", pastKeyRetention());
    o.put("maybeDelivered", record.maybeDelivered());
    o.put("notes", record.notes().size());
    return o;
  }

  /** Every field, for {@code show --json}. */
  ObjectNode detailJson() {
    ObjectNode o = summaryJson();
    if (reveal) {
      o.put("key", record.id().key());
    }
    o.put("revision", record.revision());
    o.put("keyHeader", record.keyHeader());
    if (reveal) {
      o.put("keyValue", record.keyValue());
    }
    o.put("method", record.method());
    o.put("url", record.url());
    o.set("headers", redaction.headersJson(record.headers()));
    if (record.requestDropped()) {
      // The body was dropped when the intent finished; its digest identifies the bytes sent.
      o.putNull("body");
      o.put("requestDropped", true);
      o.put("requestSha256", record.requestDigest());
    } else {
      o.set("body", redaction.bodyJson(record.body(), record.mediaType()));
    }
    ObjectNode trace = o.putObject("traceContext");
    record.traceContext().forEach(trace::put);
    o.put("pollUrl", redaction.value(record.pollUrl()));
    StoredResponse response = record.lastResponse();
    if (response == null) {
      o.putNull("lastResponse");
    } else {
      ObjectNode r = o.putObject("lastResponse");
      r.put("status", response.status());
      r.put("replayed", record.replayed());
      r.set("headers", redaction.headersJson(response.headers()));
      r.set("body", redaction.bodyJson(response.body(), response.header("Content-Type")));
    }
    ArrayNode notes = o.putArray("auditTrail");
    for (IntentRecord.Note note : record.notes()) {
      notes.addObject().put("at", note.at().toString()).put("author", note.author())
          .put("text", note.text());
    }
    return o;
  }

  /** The human-readable form of {@link #detailJson()}. */
  void printDetail(PrintWriter out) {
    line(out, "key hash", record.id().safeKey());
    if (reveal) {
      line(out, "key", record.id().key());
    }
    line(out, "scope/operation", scopeAndOperation());
    line(out, "business id", record.businessId());
    line(out, "state", record.state().name());
    line(out, "reason", record.reason());
    line(out, "age", age() + " (created " + seconds(record.createdAt()) + ")");
    line(out, "updated", seconds(record.updatedAt()) + " (revision " + record.revision() + ")");
    line(out, "attempts", record.attempts() + (record.maybeDelivered()
        ? " (may have reached the server)" : ""));
    line(out, "next attempt", next());
    line(out, "key retention", pastKeyRetention()
        ? "ENDED " + seconds(record.expiresAt()) + ": never resent blindly"
        : "until " + seconds(record.expiresAt()));
    line(out, "request", record.method() + " " + record.url());
    if (record.keyHeader() != null) {
      out.println("  " + record.keyHeader() + ": " + redaction.value(record.keyValue()));
    }
    redaction.printHeaders(out, "  ", record.headers());
    line(out, "request body", record.requestDropped()
        ? DROPPED_BODY + record.requestDigest() + ")"
        : redaction.bodyText(record.body(), record.mediaType()));
    if (record.pollUrl() != null) {
      line(out, "poll url", reveal ? record.pollUrl() : Redaction.REDACTED + " (--reveal prints it)");
    }
    record.traceContext().forEach((name, value) -> line(out, "trace " + name, value));
    StoredResponse response = record.lastResponse();
    if (response == null) {
      line(out, "last response", "none");
    } else {
      line(out, "last response", response.status() + (record.replayed() ? " (replayed)" : ""));
      redaction.printHeaders(out, "  ", response.headers());
      line(out, "response body", redaction.bodyText(response.body(), response.header("Content-Type")));
    }
    if (record.notes().isEmpty()) {
      line(out, "audit trail", "none");
    } else {
      line(out, "audit trail", record.notes().size()
          + (record.notes().size() == 1 ? " note" : " notes"));
      for (IntentRecord.Note note : record.notes()) {
        out.println("  " + seconds(note.at()) + "  " + note.author() + ": " + note.text());
      }
    }
  }
}
