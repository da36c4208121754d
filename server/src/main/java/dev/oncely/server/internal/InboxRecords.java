package dev.oncely.server.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.payload.Fingerprints;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How an {@link InboxMessage} is kept in an {@link dev.oncely.client.IntentStore}: as an {@link
 * IntentRecord}, so every engine keeps inbox messages with the same unique constraint (the
 * dedupe), compare-and-set on the revision (the fencing of leases), sealing (the payload, the
 * message id and the headers below are sealed when encryption is on), due-time index (the
 * workers' queue) and purge.
 *
 * <table>
 *   <caption>Message fields in the record</caption>
 *   <tr><th>message</th><th>record</th></tr>
 *   <tr><td>(source, message id)</td><td>id (scope, {@value #OPERATION}, key): the key is the
 *       message id, or {@code h:} and its SHA-256 when the id is not a usable key (longer than
 *       255 characters, outside visible ASCII); the id itself is then kept in a header</td></tr>
 *   <tr><td>state QUEUED, PROCESSING, HANDLED, DEAD</td><td>PENDING, IN_FLIGHT, COMPLETED,
 *       NEEDS_RECONCILIATION (never due, never purged)</td></tr>
 *   <tr><td>due time (the next run, or the lease's end)</td><td>{@code nextAttemptAt}, so the
 *       store's {@code claimDue} hands out exactly the messages a worker may take</td></tr>
 *   <tr><td>payload, content type</td><td>body and media type</td></tr>
 *   <tr><td>failures</td><td>{@code attempts}</td></tr>
 *   <tr><td>last failure's type</td><td>{@code reason} (readable by operators without the
 *       key)</td></tr>
 *   <tr><td>type, lease owner, last failure's message</td><td>headers (sealed)</td></tr>
 * </table>
 *
 * <p>Method {@value #METHOD} and URL {@value #URL} mark the record as an inbox message.
 */
public final class InboxRecords {
  /** The operation every inbox record carries. */
  public static final String OPERATION = "inbox";
  /** The method every inbox record carries. */
  public static final String METHOD = "INBOX";
  /** The URL every inbox record carries. */
  public static final String URL = "oncely:inbox";

  private static final String TYPE = "Oncely-Message-Type";
  private static final String OWNER = "Oncely-Lease-Owner";
  private static final String FAILURE = "Oncely-Last-Failure";
  private static final String MESSAGE_ID = "Oncely-Message-Id";
  private static final int MAX_FAILURE_TEXT = 300;

  private InboxRecords() {}

  /** Whether {@code record} holds an inbox message. */
  public static boolean isMessage(IntentRecord record) {
    return METHOD.equals(record.method()) && URL.equals(record.url());
  }

  /**
   * The record identity of message {@code messageId} of {@code source}.
   *
   * @throws IllegalArgumentException if {@code source} is not a usable name (blank, longer than
   *     255 characters, a control character) or {@code messageId} is blank
   */
  public static IntentId idOf(String source, String messageId) {
    if (messageId.isBlank()) {
      throw new IllegalArgumentException("a message id must not be blank");
    }
    return IntentId.of(source, OPERATION, keyOf(messageId));
  }

  /** The fingerprint of a payload's exact bytes. */
  public static String fingerprintOf(byte[] payload) {
    return Fingerprints.ofPayload(payload, null, List.of());
  }

  private static String keyOf(String messageId) {
    if (usableKey(messageId)) {
      return messageId;
    }
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256")
          .digest(messageId.getBytes(StandardCharsets.UTF_8));
      return "h:" + Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  private static boolean usableKey(String id) {
    if (id.length() > IntentId.MAX_PART_LENGTH || id.startsWith("h:")) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c <= 0x20 || c >= 0x7f) {
        return false;
      }
    }
    return true;
  }

  /** The record that keeps {@code message}. */
  public static IntentRecord toRecord(InboxMessage message) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    if (message.type() != null) {
      headers.put(TYPE, List.of(message.type()));
    }
    if (message.leaseOwner() != null) {
      headers.put(OWNER, List.of(message.leaseOwner()));
    }
    if (message.lastFailure() != null) {
      headers.put(FAILURE, List.of(message.lastFailure()));
    }
    if (!message.id().key().equals(message.messageId())) {
      headers.put(MESSAGE_ID, List.of(message.messageId()));
    }
    return IntentRecord.builder()
        .id(message.id())
        .method(METHOD)
        .url(URL)
        .headers(headers)
        .body(message.payload(), message.contentType())
        .fingerprint(message.fingerprint())
        .state(stateOf(message.state()))
        .attempts(message.failures())
        .nextAttemptAt(message.state() == InboxState.QUEUED
            || message.state() == InboxState.PROCESSING ? message.dueAt() : null)
        .reason(failureType(message.lastFailure()))
        .createdAt(message.receivedAt())
        .updatedAt(message.updatedAt())
        .expiresAt(message.expiresAt())
        .revision(message.revision())
        .notes(message.notes())
        .build();
  }

  /**
   * The message {@code record} keeps.
   *
   * @throws StoreCorruptedException if the record is not an inbox message
   */
  public static InboxMessage fromRecord(IntentRecord record) {
    if (!isMessage(record)) {
      throw new StoreCorruptedException("the record of " + record.id().safeKey()
          + " is not an inbox message: an inbox needs a store of its own");
    }
    Map<String, List<String>> h = record.headers();
    String messageId = first(h, MESSAGE_ID);
    InboxState state = stateOf(record.state());
    return InboxMessage.builder()
        .id(record.id())
        .messageId(messageId == null ? record.id().key() : messageId)
        .type(first(h, TYPE))
        .payload(record.body(), record.mediaType())
        .fingerprint(record.fingerprint())
        .state(state)
        .revision(record.revision())
        .dueAt(state == InboxState.QUEUED || state == InboxState.PROCESSING
            ? (record.nextAttemptAt() == null ? record.updatedAt() : record.nextAttemptAt())
            : null)
        .leaseOwner(first(h, OWNER))
        .failures(record.attempts())
        .lastFailure(first(h, FAILURE))
        .receivedAt(record.createdAt())
        .updatedAt(record.updatedAt())
        .expiresAt(record.expiresAt())
        .notes(record.notes())
        .build();
  }

  /**
   * What a handler's throw says, for the record: its type and message, on one line, shortened,
   * with anything but printable characters replaced.
   */
  public static String describeFailure(Throwable failure) {
    String text = failure.getClass().getName()
        + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
    StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_FAILURE_TEXT));
    for (int i = 0; i < text.length() && out.length() < MAX_FAILURE_TEXT; i++) {
      char c = text.charAt(i);
      out.append(c < 0x20 || c == 0x7f || Character.isSurrogate(c) ? ' ' : c);
    }
    return out.toString();
  }

  private static @Nullable String failureType(@Nullable String lastFailure) {
    if (lastFailure == null) {
      return null;
    }
    int colon = lastFailure.indexOf(':');
    return "last run failed: " + (colon < 0 ? lastFailure : lastFailure.substring(0, colon));
  }

  private static @Nullable String first(Map<String, List<String>> headers, String name) {
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
        return e.getValue().get(0);
      }
    }
    return null;
  }

  private static IntentState stateOf(InboxState state) {
    return switch (state) {
      case QUEUED -> IntentState.PENDING;
      case PROCESSING -> IntentState.IN_FLIGHT;
      case HANDLED -> IntentState.COMPLETED;
      case DEAD -> IntentState.NEEDS_RECONCILIATION;
    };
  }

  private static InboxState stateOf(IntentState state) {
    return switch (state) {
      case NEW, PENDING -> InboxState.QUEUED;
      case IN_FLIGHT -> InboxState.PROCESSING;
      case COMPLETED, REJECTED, KEY_CONFLICT -> InboxState.HANDLED;
      case NEEDS_RECONCILIATION -> InboxState.DEAD;
    };
  }
}
