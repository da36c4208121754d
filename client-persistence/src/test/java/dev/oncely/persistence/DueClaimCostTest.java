package dev.oncely.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.DueTime;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A claim costs what it claims, not what the store holds: with megabytes of unfinished bodies in
 * the store, {@code claimDue} of a few records allocates about what those records take, on every
 * engine, before and after a reopen. Allocation is the calling thread's own, read from the JVM.
 */
class DueClaimCostTest {
  private static final int BACKLOG = 3_000;
  private static final int BODY_BYTES = 4_096;
  private static final int CLAIMED = 16;
  /** Far above the claimed records (16 x 4 KiB, decoded) and far below the backlog's 12 MiB. */
  private static final long MAX_CLAIM_BYTES = 2L << 20;

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void a_claim_reads_only_what_it_returns_however_many_records_are_unfinished(StoreEngine engine) {
    Path file = dir.resolve("backlog.db");
    Instant t0 = Instant.parse("2026-11-30T00:00:00Z");
    byte[] body = new byte[BODY_BYTES];
    List<IntentRecord> earliest = new ArrayList<>();
    try (IntentStore store = engine.open(file)) {
      for (int i = 0; i < BACKLOG; i++) {
        // Due in the reverse order of creation, so neither the creation order nor the order of
        // the stored keys gives the claim its answer.
        Instant due = t0.plusSeconds(BACKLOG - i);
        IntentRecord r = IntentStoreContract.newRecord("s", "op", "k" + i).toBuilder()
            .body(body, "application/octet-stream").createdAt(t0).updatedAt(t0)
            .state(IntentState.PENDING).nextAttemptAt(due).build();
        store.create(r);
        if (i >= BACKLOG - CLAIMED) {
          earliest.add(0, r);
        }
      }
      assertClaimCostsWhatItClaims(store, t0.plus(Duration.ofDays(1)), earliest);
    }
    try (IntentStore store = engine.open(file)) {
      assertClaimCostsWhatItClaims(store, t0.plus(Duration.ofDays(1)), earliest);
    }
  }

  private static void assertClaimCostsWhatItClaims(IntentStore store, Instant now,
      List<IntentRecord> earliest) {
    for (int warm = 0; warm < 5; warm++) {
      assertThat(store.claimDue(now, CLAIMED)).containsExactlyElementsOf(earliest);
    }
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    List<IntentRecord> claimed = store.claimDue(now, CLAIMED);
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(claimed).containsExactlyElementsOf(earliest);
    assertThat(DueTime.of(claimed.get(0))).isBefore(DueTime.of(claimed.get(CLAIMED - 1)));
    assertThat(allocated)
        .as("bytes allocated by claimDue(%d) with %d unfinished records of %d-byte bodies",
            CLAIMED, BACKLOG, BODY_BYTES)
        .isLessThan(MAX_CLAIM_BYTES);
  }
}
