package dev.oncely.client.internal.drive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.StoredResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** The resume queue's two limits, its order, and a backlog whose drives all end at once. */
class ResumeQueueTest {
  private static List<IntentId> ids(int n) {
    List<IntentId> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(IntentId.of("s", "op", "k" + i));
    }
    return ids;
  }

  private static IntentOutcome done(IntentId id) {
    Instant t = Instant.parse("2026-11-30T00:00:00Z");
    return IntentOutcome.of(IntentRecord.builder().id(id).method("POST")
        .url("https://api.example.test/p").fingerprint("ab".repeat(32))
        .state(IntentState.COMPLETED).lastResponse(StoredResponse.of(201, Map.of(), new byte[0]))
        .createdAt(t).updatedAt(t).expiresAt(t).build());
  }

  /** Drives whose waits and ends the test decides. */
  private static final class Drives {
    final Map<IntentId, CompletableFuture<IntentOutcome>> ends = new ConcurrentHashMap<>();
    final Map<IntentId, CompletableFuture<Void>> waits = new ConcurrentHashMap<>();
    final List<IntentId> started = new ArrayList<>();

    synchronized ResumeQueue.Started start(IntentId id) {
      started.add(id);
      CompletableFuture<IntentOutcome> end = new CompletableFuture<>();
      CompletableFuture<Void> wait = new CompletableFuture<>();
      end.whenComplete((o, e) -> wait.complete(null));
      ends.put(id, end);
      waits.put(id, wait);
      return new ResumeQueue.Started(end, wait);
    }

    synchronized int startedCount() {
      return started.size();
    }

    void waitFor(IntentId id) {
      waits.get(id).complete(null);
    }

    void end(IntentId id) {
      ends.get(id).complete(done(id));
    }
  }

  @Test
  void a_drive_that_waits_lets_the_next_start_until_the_in_progress_limit() {
    List<IntentId> ids = ids(20);
    Drives drives = new Drives();
    List<CompletableFuture<IntentOutcome>> futures = ResumeQueue.run(ids, 2, 5, drives::start);
    assertThat(drives.startedCount()).isEqualTo(2);
    drives.waitFor(ids.get(0));
    assertThat(drives.startedCount()).isEqualTo(3);
    drives.waitFor(ids.get(1));
    drives.waitFor(ids.get(2));
    drives.waitFor(ids.get(3));
    // Five in progress (four waiting, one starting): the limit, however many have freed a thread.
    assertThat(drives.startedCount()).isEqualTo(5);
    drives.waitFor(ids.get(4));
    assertThat(drives.startedCount()).isEqualTo(5);
    drives.end(ids.get(0));
    assertThat(drives.startedCount()).isEqualTo(6);
    assertThat(futures.get(0)).isCompletedWithValue(done(ids.get(0)));
    assertThat(drives.started).containsExactlyElementsOf(ids.subList(0, 6));
    while (!futures.stream().allMatch(CompletableFuture::isDone)) {
      for (IntentId id : List.copyOf(drives.started)) {
        drives.end(id);
      }
    }
    assertThat(drives.started).containsExactlyElementsOf(ids);
    assertThat(futures).allSatisfy(f -> assertThat(f).isCompleted());
  }

  @Test
  void drives_that_end_at_once_drain_a_large_backlog_without_growing_the_stack() {
    List<IntentId> ids = ids(100_000);
    IntentOutcome outcome = done(ids.get(0));
    List<IntentId> startedInOrder = new ArrayList<>();
    List<CompletableFuture<IntentOutcome>> futures = ResumeQueue.run(ids, 64, 4_096, id -> {
      startedInOrder.add(id);
      return ResumeQueue.Started.untilEnd(CompletableFuture.completedFuture(outcome));
    });
    assertThat(futures).hasSize(ids.size()).allMatch(CompletableFuture::isDone);
    assertThat(startedInOrder).isEqualTo(ids);
  }

  @Test
  void a_start_that_throws_fails_its_own_future_and_the_rest_go_on() {
    List<IntentId> ids = ids(3);
    IllegalStateException boom = new IllegalStateException("boom");
    List<CompletableFuture<IntentOutcome>> futures = ResumeQueue.run(ids, 1, 1, id -> {
      if (id.equals(ids.get(1))) {
        throw boom;
      }
      return ResumeQueue.Started.untilEnd(CompletableFuture.completedFuture(done(id)));
    });
    assertThat(futures.get(0)).isCompletedWithValue(done(ids.get(0)));
    assertThat(futures.get(1)).isCompletedExceptionally();
    assertThat(futures.get(2)).isCompletedWithValue(done(ids.get(2)));
  }
}
