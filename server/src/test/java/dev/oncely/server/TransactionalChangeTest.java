package dev.oncely.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentId;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A change of the receipt that the app writes in its own transaction ({@link
 * HandlerContext#beginTransactionalChange}, {@link HandlerContext#transactionalChangeEnded}): one
 * at a time, a fresh lease, renewals held while it is open, the committed receipt checked.
 */
class TransactionalChangeTest {
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  static final EndpointPolicy POLICY = EndpointPolicy.builder("orders.create")
      .lease(Duration.ofSeconds(30)).build();

  final ReceiptStore receipts = ReceiptStore.on(new InMemoryIntentStore());
  final AtomicReference<Instant> now = new AtomicReference<>(T0);
  final Clock clock = new Clock() {
    @Override
    public Instant instant() {
      return now.get();
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  };
  final IdempotentEndpoints endpoints = IdempotentEndpoints.builder(receipts).clock(clock).build();

  @AfterEach
  void close() {
    endpoints.close();
  }

  private static InboundRequest request() {
    return InboundRequest.builder("POST", "/orders")
        .header("Idempotency-Key", "\"k1\"")
        .header("Content-Type", "application/json")
        .body("{\"order\":\"o-1\"}".getBytes(StandardCharsets.UTF_8))
        .principal("alice").build();
  }

  private Receipt stored() {
    return receipts.get(IntentId.of("alice", "orders.create", "k1")).orElseThrow();
  }

  private ServerAnswer handle(EndpointHandler handler) throws Exception {
    return endpoints.handle(request(), POLICY, handler);
  }

  @Test
  void the_change_is_the_next_revision_with_effects_committed_and_a_lease_from_now()
      throws Exception {
    handle(context -> {
      Receipt owned = context.receipt();
      now.set(T0.plusSeconds(20));
      Receipt next = context.beginTransactionalChange("o-1");
      assertThat(next.revision()).isEqualTo(owned.revision() + 1);
      assertThat(next.effectsCommitted()).isTrue();
      assertThat(next.reference()).isEqualTo("o-1");
      assertThat(next.leaseUntil()).isEqualTo(T0.plusSeconds(50));
      assertThat(next.leaseOwner()).isEqualTo(owned.leaseOwner());
      assertThat(context.receipt()).as("unchanged while the change is open").isEqualTo(owned);
      context.transactionalChangeEnded(null);
      return ServerAnswer.json(200, "{}");
    });
  }

  @Test
  void renewals_are_held_while_a_change_is_open_and_resume_after_it_ended() throws Exception {
    handle(context -> {
      Receipt owned = context.receipt();
      context.beginTransactionalChange("o-1");
      assertThat(context.renewLease()).isTrue();
      assertThat(stored()).as("no renewal was written").isEqualTo(owned);
      context.transactionalChangeEnded(null);
      assertThat(context.renewLease()).isTrue();
      assertThat(stored().revision()).isEqualTo(owned.revision() + 1);
      return ServerAnswer.json(200, "{}");
    });
  }

  @Test
  void a_committed_change_becomes_the_receipt_and_the_run_completes_on_it() throws Exception {
    ServerAnswer answer = handle(context -> {
      Receipt next = context.beginTransactionalChange("o-1");
      assertThat(receipts.replace(context.receipt(), next)).as("the app's transaction").isTrue();
      context.transactionalChangeEnded(next);
      assertThat(context.receipt()).isEqualTo(next);
      return ServerAnswer.json(201, "{}");
    });
    assertThat(answer.status()).isEqualTo(201);
    assertThat(stored().state()).isEqualTo(ReceiptState.COMPLETED);
    assertThat(stored().reference()).isEqualTo("o-1");
  }

  @Test
  void a_rolled_back_change_leaves_the_receipt_and_another_may_begin() throws Exception {
    handle(context -> {
      Receipt owned = context.receipt();
      context.beginTransactionalChange("o-1");
      context.transactionalChangeEnded(null);
      assertThat(context.receipt()).isEqualTo(owned);
      Receipt again = context.beginTransactionalChange("o-2");
      assertThat(again.revision()).isEqualTo(owned.revision() + 1);
      context.transactionalChangeEnded(null);
      return ServerAnswer.json(200, "{}");
    });
  }

  @Test
  void one_change_at_a_time_and_no_other_write_while_it_is_open() throws Exception {
    handle(context -> {
      context.beginTransactionalChange("o-1");
      assertThatThrownBy(() -> context.beginTransactionalChange("o-2"))
          .isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> context.effectsCommitted("o-2"))
          .isInstanceOf(IllegalStateException.class);
      context.transactionalChangeEnded(null);
      return ServerAnswer.json(200, "{}");
    });
  }

  @Test
  void ending_a_change_that_is_not_open_or_with_another_receipt_is_refused() throws Exception {
    handle(context -> {
      assertThatThrownBy(() -> context.transactionalChangeEnded(null))
          .isInstanceOf(IllegalStateException.class);
      Receipt next = context.beginTransactionalChange("o-1");
      Receipt other = next.toBuilder().reference("o-2").build();
      assertThatThrownBy(() -> context.transactionalChangeEnded(other))
          .isInstanceOf(IllegalArgumentException.class);
      context.transactionalChangeEnded(null);
      return ServerAnswer.json(200, "{}");
    });
  }

  @Test
  void an_unprotected_request_has_no_change_to_begin() throws Exception {
    EndpointPolicy optional = POLICY.toBuilder().keyRequired(false).build();
    InboundRequest keyless = InboundRequest.builder("POST", "/orders").principal("alice").build();
    endpoints.handle(keyless, optional, context -> {
      assertThatThrownBy(() -> context.beginTransactionalChange("o-1"))
          .isInstanceOf(IllegalStateException.class);
      return ServerAnswer.json(200, "{}");
    });
  }
}
