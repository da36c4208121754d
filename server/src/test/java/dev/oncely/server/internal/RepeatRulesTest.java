package dev.oncely.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.client.StoredResponse;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The server's one decision table, as one table of prose-named rows: (receipt state, lease,
 * effects committed, endpoint safe to re-run, recovery hook set, repeat's payload) gives the
 * {@link Repeat}. A row with {@code ANY} holds for every value of that column; each row is checked
 * on every concrete case it covers, and the table is checked to cover every case exactly once, so
 * no combination is decided by accident. The rows are those of {@link RepeatRules}' javadoc and of
 * the contract's "Reservation and repeats" table; its first and last rows (no receipt yet, a key
 * missing or malformed) are decided before a receipt is read and are tested in {@code
 * IdempotentEndpointsTest}.
 */
class RepeatRulesTest {
  private static final Instant NOW = Instant.parse("2026-12-01T09:00:00Z");
  private static final IntentId ID = IntentId.of("tenant-a", "payments.create", "k1");
  private static final String SAME = "v2:" + "ab".repeat(32);
  private static final String OTHER = "v2:" + "cd".repeat(32);
  private static final StoredResponse STORED = StoredResponse.of(201,
      Map.of("Content-Type", List.of("application/json")),
      "{\"id\":\"p-1\"}".getBytes(StandardCharsets.UTF_8));

  enum Lease { ALIVE, ENDS_NOW, ENDED, ANY }

  enum Flag {
    YES, NO, ANY;

    boolean covers(boolean value) {
      return this == ANY || (this == YES) == value;
    }
  }

  enum Payload { SAME, OTHER }

  /**
   * One row of the table.
   *
   * @param name what the row says, in words
   */
  record Row(String name, ReceiptState state, Lease lease, Flag effectsCommitted, Flag rerunSafe,
      Flag recoverySet, Payload payload, Class<? extends Repeat> expected) {
    boolean covers(Case c) {
      return state == c.state
          && (lease == Lease.ANY || lease == c.lease)
          && effectsCommitted.covers(c.effectsCommitted)
          && rerunSafe.covers(c.rerunSafe)
          && recoverySet.covers(c.recoverySet)
          && payload == c.payload;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** One concrete situation a repeat can meet. */
  record Case(ReceiptState state, Lease lease, boolean effectsCommitted, boolean rerunSafe,
      boolean recoverySet, Payload payload) {
    @Override
    public String toString() {
      return state + ", lease " + lease + ", effects committed " + effectsCommitted
          + ", rerun safe " + rerunSafe + ", recovery " + recoverySet + ", " + payload
          + " payload";
    }
  }

  static final List<Row> TABLE = List.of(
      new Row("another payload under a completed key is a mismatch, never a replay",
          ReceiptState.COMPLETED, Lease.ANY, Flag.ANY, Flag.ANY, Flag.ANY, Payload.OTHER,
          Repeat.Mismatch.class),
      new Row("another payload while the first still runs is a mismatch, never a wait",
          ReceiptState.PROCESSING, Lease.ANY, Flag.ANY, Flag.ANY, Flag.ANY, Payload.OTHER,
          Repeat.Mismatch.class),
      new Row("another payload under a pending key is a mismatch, never a recovery",
          ReceiptState.PENDING, Lease.ANY, Flag.ANY, Flag.ANY, Flag.ANY, Payload.OTHER,
          Repeat.Mismatch.class),
      new Row("another payload under a released key is a mismatch, never a run",
          ReceiptState.RELEASED, Lease.ANY, Flag.ANY, Flag.ANY, Flag.ANY, Payload.OTHER,
          Repeat.Mismatch.class),
      new Row("a completed receipt replays its stored answer",
          ReceiptState.COMPLETED, Lease.ANY, Flag.ANY, Flag.ANY, Flag.ANY, Payload.SAME,
          Repeat.Replay.class),
      new Row("processing under a live lease is in progress, whatever the endpoint",
          ReceiptState.PROCESSING, Lease.ALIVE, Flag.ANY, Flag.ANY, Flag.ANY, Payload.SAME,
          Repeat.InProgress.class),
      new Row("a lease that ends this instant has ended: effects committed, complete from the"
          + " recovery point", ReceiptState.PROCESSING, Lease.ENDS_NOW, Flag.YES, Flag.ANY,
          Flag.ANY, Payload.SAME, Repeat.TakeOverAndRecover.class),
      new Row("the owner died after committing its effects: take over and recover, never run,"
          + " even on a re-runnable endpoint", ReceiptState.PROCESSING, Lease.ENDED, Flag.YES,
          Flag.ANY, Flag.ANY, Payload.SAME, Repeat.TakeOverAndRecover.class),
      new Row("the owner died with nothing committed on a re-runnable endpoint: take over and run",
          ReceiptState.PROCESSING, Lease.ENDED, Flag.NO, Flag.YES, Flag.ANY, Payload.SAME,
          Repeat.TakeOverAndRun.class),
      new Row("a lease that ends this instant has ended: re-runnable, take over and run",
          ReceiptState.PROCESSING, Lease.ENDS_NOW, Flag.NO, Flag.YES, Flag.ANY, Payload.SAME,
          Repeat.TakeOverAndRun.class),
      new Row("the owner died, effects unknown, endpoint not re-runnable: take over as pending",
          ReceiptState.PROCESSING, Lease.ENDED, Flag.NO, Flag.NO, Flag.ANY, Payload.SAME,
          Repeat.TakeOverAsPending.class),
      new Row("a lease that ends this instant has ended: not re-runnable, take over as pending",
          ReceiptState.PROCESSING, Lease.ENDS_NOW, Flag.NO, Flag.NO, Flag.ANY, Payload.SAME,
          Repeat.TakeOverAsPending.class),
      new Row("pending with a recovery hook asks the hook",
          ReceiptState.PENDING, Lease.ANY, Flag.ANY, Flag.ANY, Flag.YES, Payload.SAME,
          Repeat.Recover.class),
      new Row("pending without a recovery hook answers 202, never a second run",
          ReceiptState.PENDING, Lease.ANY, Flag.ANY, Flag.ANY, Flag.NO, Payload.SAME,
          Repeat.Pending.class),
      new Row("a released reservation is taken over and run again",
          ReceiptState.RELEASED, Lease.ANY, Flag.ANY, Flag.ANY, Flag.ANY, Payload.SAME,
          Repeat.TakeOverAndRun.class));

  static Stream<Row> rows() {
    return TABLE.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void row_holds_for_every_case_it_covers(Row row) {
    List<Case> covered = allCases().stream().filter(row::covers).toList();
    assertThat(covered).as("cases of " + row).isNotEmpty();
    for (Case c : covered) {
      Repeat decided = decide(c);
      assertThat(decided).as(c.toString()).isInstanceOf(row.expected());
      if (decided instanceof Repeat.Replay replay) {
        assertThat(replay.answer()).as("the stored answer itself").isSameAs(STORED);
      }
      if (decided instanceof Repeat.InProgress inProgress) {
        assertThat(inProgress.retryAfter()).isEqualTo(RepeatRules.IN_PROGRESS_RETRY_AFTER)
            .isEqualTo(Duration.ofSeconds(1));
      }
    }
  }

  @Test
  void the_table_decides_every_case_exactly_once() {
    for (Case c : allCases()) {
      List<Row> matching = TABLE.stream().filter(r -> r.covers(c)).toList();
      assertThat(matching).as(c.toString()).hasSize(1);
    }
  }

  @Test
  void the_fingerprint_is_compared_before_the_state_so_a_mismatch_never_reads_the_answer() {
    Receipt completed = receipt(new Case(ReceiptState.COMPLETED, Lease.ENDED, false, false,
        false, Payload.SAME));

    Repeat decided = RepeatRules.decide(completed, OTHER, NOW, policy(false), true);

    assertThat(decided).isEqualTo(new Repeat.Mismatch());
  }

  private static List<Case> allCases() {
    List<Case> all = new ArrayList<>();
    for (ReceiptState state : ReceiptState.values()) {
      for (Lease lease : List.of(Lease.ALIVE, Lease.ENDS_NOW, Lease.ENDED)) {
        for (boolean effects : new boolean[] {false, true}) {
          for (boolean rerun : new boolean[] {false, true}) {
            for (boolean recovery : new boolean[] {false, true}) {
              for (Payload payload : Payload.values()) {
                all.add(new Case(state, lease, effects, rerun, recovery, payload));
              }
            }
          }
        }
      }
    }
    return all;
  }

  private static Repeat decide(Case c) {
    return RepeatRules.decide(receipt(c), c.payload == Payload.SAME ? SAME : OTHER, NOW,
        policy(c.rerunSafe), c.recoverySet);
  }

  private static EndpointPolicy policy(boolean rerunSafe) {
    return EndpointPolicy.builder("payments.create").rerunSafe(rerunSafe).build();
  }

  /**
   * The receipt of {@code c}. Only a processing receipt holds a lease in the store; the others
   * carry the lease they last had, which the table must ignore.
   */
  private static Receipt receipt(Case c) {
    Instant leaseUntil = switch (c.lease) {
      case ALIVE -> NOW.plusSeconds(10);
      case ENDS_NOW -> NOW;
      case ENDED, ANY -> NOW.minusSeconds(10);
    };
    return Receipt.builder().id(ID).fingerprint(SAME).state(c.state).revision(3)
        .lease(leaseUntil, "instance-1").answer(c.state == ReceiptState.COMPLETED ? STORED : null)
        .effectsCommitted(c.effectsCommitted).reference(c.effectsCommitted ? "order-1" : null)
        .runs(1).statusToken(StatusTokens.tokenOf(ID)).createdAt(NOW.minusSeconds(60))
        .updatedAt(NOW.minusSeconds(30)).expiresAt(NOW.plus(Duration.ofHours(24))).build();
  }
}
