package dev.oncely.server.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * How a {@link Receipt} is kept in an {@link dev.oncely.client.IntentStore}: as an {@link
 * IntentRecord} under the same (scope, operation, key), so every engine the client has (MapDB,
 * SQLite, Android, PostgreSQL, in-memory) keeps receipts with the same unique constraint, the same
 * compare-and-set on the revision, the same record format, key hashing at rest, sealing and purge.
 *
 * <table>
 *   <caption>Receipt fields in the record</caption>
 *   <tr><th>receipt</th><th>record</th></tr>
 *   <tr><td>state PROCESSING, COMPLETED, PENDING, RELEASED</td>
 *       <td>IN_FLIGHT, COMPLETED, PENDING, REJECTED (terminal, so a released reservation is
 *       purged with the finished ones)</td></tr>
 *   <tr><td>lease end</td><td>{@code nextAttemptAt}</td></tr>
 *   <tr><td>answer</td><td>{@code lastResponse} (sealed when encryption is on)</td></tr>
 *   <tr><td>runs</td><td>{@code attempts}</td></tr>
 *   <tr><td>status token</td><td>{@code businessId} (indexed: the status URL finds it)</td></tr>
 *   <tr><td>operator notes</td><td>{@code notes} (the audit trail the operator CLI appends
 *       to)</td></tr>
 *   <tr><td>lease owner, reference, effects committed</td><td>the body, a small JSON document of
 *       media type {@value #MEDIA_TYPE} (the request body itself is never kept)</td></tr>
 * </table>
 *
 * <p>Method {@value #METHOD} and URL {@value #URL} mark the record as a receipt for anyone who
 * reads the store with the operator CLI.
 */
public final class ReceiptRecords {
  /** The method every receipt record carries. */
  public static final String METHOD = "RECEIPT";
  /** The URL every receipt record carries. */
  public static final String URL = "oncely:receipt";
  /** The media type of a receipt record's body. */
  public static final String MEDIA_TYPE = "application/vnd.oncely.receipt+json";

  private static final JsonFactory JSON = new JsonFactory();

  private ReceiptRecords() {}

  /** Whether {@code record} holds a receipt. */
  public static boolean isReceipt(IntentRecord record) {
    return METHOD.equals(record.method()) && URL.equals(record.url());
  }

  /** The record that keeps {@code receipt}. */
  public static IntentRecord toRecord(Receipt receipt) {
    return IntentRecord.builder()
        .id(receipt.id())
        .businessId(receipt.statusToken())
        .method(METHOD)
        .url(URL)
        .body(document(receipt), MEDIA_TYPE)
        .fingerprint(receipt.fingerprint())
        .state(stateOf(receipt.state()))
        .attempts(receipt.runs())
        .nextAttemptAt(receipt.state() == ReceiptState.PROCESSING ? receipt.leaseUntil() : null)
        .lastResponse(receipt.answer())
        .reason(receipt.reason())
        .createdAt(receipt.createdAt())
        .updatedAt(receipt.updatedAt())
        .expiresAt(receipt.expiresAt())
        .revision(receipt.revision())
        .notes(receipt.notes())
        .build();
  }

  /**
   * The receipt {@code record} keeps.
   *
   * @throws StoreCorruptedException if the record is not a receipt or its document is damaged
   */
  public static Receipt fromRecord(IntentRecord record) {
    if (!isReceipt(record)) {
      throw new StoreCorruptedException("the record of " + record.id().safeKey()
          + " is a client's intent, not a receipt: a receipt store must not be shared with a"
          + " client's intents");
    }
    Receipt.Builder b = Receipt.builder()
        .id(record.id())
        .fingerprint(record.fingerprint())
        .state(stateOf(record.state()))
        .revision(record.revision())
        .answer(record.lastResponse())
        .reason(record.reason())
        .runs(record.attempts())
        .statusToken(record.businessId() == null ? "" : record.businessId())
        .createdAt(record.createdAt())
        .updatedAt(record.updatedAt())
        .expiresAt(record.expiresAt())
        .notes(record.notes());
    readDocument(record, b);
    return b.build();
  }

  private static IntentState stateOf(ReceiptState state) {
    return switch (state) {
      case PROCESSING -> IntentState.IN_FLIGHT;
      case COMPLETED -> IntentState.COMPLETED;
      case PENDING -> IntentState.PENDING;
      case RELEASED -> IntentState.REJECTED;
    };
  }

  private static ReceiptState stateOf(IntentState state) {
    return switch (state) {
      case IN_FLIGHT, NEW -> ReceiptState.PROCESSING;
      case COMPLETED -> ReceiptState.COMPLETED;
      case PENDING, NEEDS_RECONCILIATION -> ReceiptState.PENDING;
      case REJECTED, KEY_CONFLICT -> ReceiptState.RELEASED;
    };
  }

  private static byte[] document(Receipt receipt) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(96);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeNumberField("v", 1);
      if (receipt.leaseOwner() != null) {
        g.writeStringField("owner", receipt.leaseOwner());
      }
      if (receipt.state() == ReceiptState.PROCESSING && receipt.leaseUntil() != null) {
        g.writeNumberField("leaseSeconds", receipt.leaseUntil().getEpochSecond());
        g.writeNumberField("leaseNanos", receipt.leaseUntil().getNano());
      }
      if (receipt.reference() != null) {
        g.writeStringField("reference", receipt.reference());
      }
      if (receipt.effectsCommitted()) {
        g.writeBooleanField("effectsCommitted", true);
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static void readDocument(IntentRecord record, Receipt.Builder b) {
    String owner = null;
    long leaseSeconds = Long.MIN_VALUE;
    int leaseNanos = 0;
    try (JsonParser p = JSON.createParser(record.body())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw damaged(record);
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        switch (field) {
          case "owner" -> owner = p.getText();
          case "leaseSeconds" -> leaseSeconds = p.getLongValue();
          case "leaseNanos" -> leaseNanos = p.getIntValue();
          case "reference" -> b.reference(p.getText());
          case "effectsCommitted" -> b.effectsCommitted(p.getBooleanValue());
          default -> p.skipChildren();
        }
      }
    } catch (IOException e) {
      throw damaged(record);
    }
    Instant lease = leaseSeconds == Long.MIN_VALUE ? record.nextAttemptAt()
        : Instant.ofEpochSecond(leaseSeconds, leaseNanos);
    if (record.state() == IntentState.IN_FLIGHT || record.state() == IntentState.NEW) {
      b.lease(lease == null ? record.updatedAt() : lease, owner);
    } else {
      b.lease(null, owner);
    }
  }

  private static StoreCorruptedException damaged(IntentRecord record) {
    return new StoreCorruptedException("the receipt document of " + record.id().safeKey()
        + " cannot be read");
  }
}
