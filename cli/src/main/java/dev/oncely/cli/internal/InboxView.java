package dev.oncely.cli.internal;

import static dev.oncely.cli.internal.Redaction.line;
import static dev.oncely.cli.internal.Redaction.seconds;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.oncely.client.IntentRecord;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;

/**
 * One inbox message as an operator sees it. The message id appears only as its short hash, the
 * payload only as its length and fingerprint, and the last failure only as its type, unless
 * {@code reveal} is set: a payload holds what the sender sent (a customer's address, an amount),
 * and a handler's exception message can quote it. The inbox keeps the same split at rest: the
 * failure's type is readable without the store key, its message is sealed with the payload.
 */
final class InboxView {
  private final InboxMessage message;
  private final Instant now;
  private final Redaction redaction;

  InboxView(InboxMessage message, Instant now, boolean reveal) {
    this.message = message;
    this.now = now;
    this.redaction = new Redaction(reveal);
  }

  /** How long ago the message was first stored. */
  String received() {
    return Ages.format(Duration.between(message.receivedAt(), now)) + " ago";
  }

  /**
   * When it runs next, in a few words: a queued message's due time, a processing one's lease (time
   * left, or how long ago it ran out); "-" for a handled or dead one.
   */
  String due() {
    Instant due = message.dueAt();
    if (due == null) {
      return "-";
    }
    if (message.state() == InboxState.PROCESSING) {
      return due.isAfter(now) ? "lease " + Ages.format(Duration.between(now, due)) + " left"
          : "lease ran out " + Ages.format(Duration.between(due, now)) + " ago";
    }
    return due.isAfter(now) ? "in " + Ages.format(Duration.between(now, due)) : "now";
  }

  /** Whether a processing message's holder stopped renewing: a worker takes it over. */
  boolean leaseRanOut() {
    return message.state() == InboxState.PROCESSING && message.dueAt() != null
        && !message.dueAt().isAfter(now);
  }

  /**
   * The last failure's type: the exception's class name, or the inbox's words for a run whose
   * lease ran out; never the exception's message.
   */
  String lastFailureType() {
    String failure = message.lastFailure();
    if (failure == null) {
      return null;
    }
    int colon = failure.indexOf(':');
    return colon < 0 ? failure : failure.substring(0, colon);
  }

  /** The fields {@code inbox list --json} prints. */
  ObjectNode summaryJson() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("source", message.source());
    o.put("idHash", message.id().safeKey());
    o.put("type", message.type());
    o.put("state", message.state().name());
    o.put("failures", message.failures());
    o.put("lastFailureType", lastFailureType());
    o.put("receivedAt", message.receivedAt().toString());
    o.put("ageSeconds", Math.max(0, Duration.between(message.receivedAt(), now).getSeconds()));
    o.put("dueAt", message.dueAt() == null ? null : message.dueAt().toString());
    o.put("leaseOwner", message.leaseOwner());
    o.put("leaseRanOut", leaseRanOut());
    o.put("updatedAt", message.updatedAt().toString());
    o.put("expiresAt", message.expiresAt().toString());
    o.put("notes", message.notes().size());
    return o;
  }

  /** Every field, for {@code inbox show --json}. */
  ObjectNode detailJson() {
    ObjectNode o = summaryJson();
    if (redaction.reveals()) {
      o.put("messageId", message.messageId());
      o.put("lastFailure", message.lastFailure());
    }
    o.put("revision", message.revision());
    ObjectNode payload = redaction.bodyJson(message.payload(), message.contentType());
    payload.put("fingerprint", message.fingerprint());
    o.set("payload", payload);
    ArrayNode notes = o.putArray("auditTrail");
    for (IntentRecord.Note note : message.notes()) {
      notes.addObject().put("at", note.at().toString()).put("author", note.author())
          .put("text", note.text());
    }
    return o;
  }

  /** The human-readable form of {@link #detailJson()}. */
  void printDetail(PrintWriter out) {
    line(out, "source", message.source());
    line(out, "id hash", message.id().safeKey());
    line(out, "message id", redaction.reveals() ? message.messageId()
        : Redaction.REDACTED + " (--reveal prints it)");
    line(out, "type", message.type());
    line(out, "state", message.state().name() + " (" + meaning() + ")");
    line(out, "failures", Integer.toString(message.failures()));
    String failure = message.lastFailure();
    line(out, "last failure", failure == null ? null : redaction.reveals() ? failure
        : lastFailureType() + (failure.contains(":") ? " " + Redaction.REDACTED
            + " (--reveal prints its message)" : ""));
    if (message.state() == InboxState.PROCESSING) {
      line(out, "lease", message.leaseOwner() + ", until " + seconds(message.dueAt()) + " ("
          + due() + ")" + (leaseRanOut() ? ": a worker takes it over, counting a failure" : ""));
    } else {
      if (message.state() == InboxState.QUEUED) {
        line(out, "due", seconds(message.dueAt()) + " (" + due() + ")");
      }
      line(out, "last owner", message.leaseOwner());
    }
    line(out, "received", received() + " (" + seconds(message.receivedAt()) + ")");
    line(out, "updated", seconds(message.updatedAt()) + " (revision " + message.revision() + ")");
    line(out, "kept until", message.state() == InboxState.HANDLED
        ? seconds(message.expiresAt()) + " (then purged; a redelivery before that is a"
            + " duplicate)"
        : "as long as it is unfinished (queued, processing and dead messages are never purged)");
    line(out, "payload", redaction.bodyText(message.payload(), message.contentType()));
    line(out, "fingerprint", message.fingerprint());
    if (message.notes().isEmpty()) {
      line(out, "audit trail", "none");
    } else {
      line(out, "audit trail", message.notes().size()
          + (message.notes().size() == 1 ? " note" : " notes"));
      for (IntentRecord.Note note : message.notes()) {
        out.println("  " + seconds(note.at()) + "  " + note.author() + ": " + note.text());
      }
    }
  }

  private String meaning() {
    return switch (message.state()) {
      case QUEUED -> "waiting for a worker";
      case PROCESSING -> leaseRanOut() ? "its holder stopped renewing the lease"
          : "a handler runs under a lease";
      case HANDLED -> "its handler finished; a redelivery is acknowledged and never run";
      case DEAD -> "failed as often as allowed; never run again until `oncely inbox replay`";
    };
  }
}
