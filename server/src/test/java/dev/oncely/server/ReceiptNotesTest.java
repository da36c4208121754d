package dev.oncely.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.persistence.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator's notes on a receipt (the audit trail the CLI appends when it resolves one by hand)
 * are kept in the store record and survive every later change the server makes to the receipt.
 */
class ReceiptNotesTest {
  private static final EndpointPolicy POLICY = EndpointPolicy.builder("create-order").build();
  private static final byte[] BODY = "{\"amount\":100}".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

  private static InboundRequest request() {
    return InboundRequest.builder("POST", "/orders").header("Idempotency-Key", "\"key-1\"")
        .header("Content-Type", "application/json").body(BODY).principal("tenant-a").build();
  }

  @Test
  void an_operator_note_survives_the_takeover_and_completion_that_follow_a_release()
      throws Exception {
    Path file = dir.resolve("receipts.db");
    AtomicInteger runs = new AtomicInteger();
    IntentRecord.Note note = new IntentRecord.Note(Instant.parse("2026-12-05T10:00:00Z"), "ops",
        "released: the provider has no charge for this order");
    try (ReceiptStore receipts = ReceiptStore.on(MapDbIntentStore.open(file,
            StoreOptions.defaults()));
        IdempotentEndpoints endpoints = IdempotentEndpoints.builder(receipts).build()) {
      endpoints.handle(request(), POLICY, context -> {
        runs.incrementAndGet();
        context.pending("charge-1", "the provider did not answer");
        return ServerAnswer.json(202, "{}");
      });
      Receipt pending = receipts.listUnfinished().get(0);
      assertThat(pending.state()).isEqualTo(ReceiptState.PENDING);
      Receipt released = pending.toBuilder().revision(pending.revision() + 1)
          .state(ReceiptState.RELEASED).addNote(note).updatedAt(note.at()).build();
      assertThat(receipts.replace(pending, released)).isTrue();

      ServerAnswer answer = endpoints.handle(request(), POLICY, context -> {
        runs.incrementAndGet();
        return ServerAnswer.json(201, "{\"id\":\"o-1\"}");
      });
      assertThat(answer.status()).isEqualTo(201);
    }
    assertThat(runs).hasValue(2);
    try (IntentStore reopened = MapDbIntentStore.open(file, StoreOptions.defaults())) {
      assertThat(reopened.listUnfinished()).isEmpty();
      IntentRecord record = onlyRecord(reopened);
      assertThat(record.state().name()).isEqualTo("COMPLETED");
      assertThat(record.notes()).containsExactly(note);
      assertThat(ReceiptStore.on(reopened).get(record.id()).orElseThrow().notes())
          .containsExactly(note);
    }
  }

  private static IntentRecord onlyRecord(IntentStore store) {
    IntentRecord[] found = new IntentRecord[1];
    store.forEachFinished(r -> found[0] = r);
    return found[0];
  }
}
