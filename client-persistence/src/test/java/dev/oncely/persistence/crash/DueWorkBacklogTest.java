package dev.oncely.persistence.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.testing.IdempotentServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backlog larger than the heap that holds it: thousands of never-sent intents with 1.5 KB bodies
 * in a MapDB store, driven to completion by the due-work scheduler in a child JVM with a small
 * heap, against the testing kit's idempotent server in this JVM. Before claims had an index, the
 * first tick read every unfinished record and died of {@code OutOfMemoryError} in 128 MB with
 * 50,000 intents. The server sees exactly one effect per intent; the store ends with none
 * unfinished.
 *
 * <p>Always: 5,000 intents in a 32 MB heap. {@code -Doncely.backlog.intents=50000
 * -Doncely.backlog.heap=128m} is the long mode (about a minute on 2 cores).
 */
class DueWorkBacklogTest {
  private static final int INTENTS = Integer.getInteger("oncely.backlog.intents", 5_000);
  private static final String HEAP = System.getProperty("oncely.backlog.heap", "32m");
  private static final int BODY_BYTES = 1_536;
  /** The scheduler's interval in the child: short, so the test drains in seconds, not minutes. */
  private static final long INTERVAL_MILLIS = 20;

  @TempDir Path dir;

  @Test
  void the_scheduler_drives_a_backlog_of_never_sent_intents_to_completion_in_a_small_heap()
      throws Exception {
    IdempotentServer kit = IdempotentServer.builder().build();
    Path file = dir.resolve("backlog.db");
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(kit);
      server.start();
      fill(file, server.url("/payments").toString());
      ChildProcess child = ChildProcess.start(DueWorkBacklogChild.class,
          List.of("-Xmx" + HEAP), List.of(file.toString(), Integer.toString(INTENTS),
              Long.toString(INTERVAL_MILLIS)), dir, "backlog");
      String done = null;
      for (String line = child.nextLine(); line != null; line = child.nextLine()) {
        if (line.startsWith("DONE")) {
          done = line;
        }
        assertThat(line).as("child stderr: %s", child.stderrText())
            .doesNotStartWith("FAILED").doesNotStartWith("STUCK").doesNotStartWith("FAILURE");
      }
      assertThat(child.awaitExit()).as("child stderr: %s", child.stderrText()).isZero();
      assertThat(done).as("the child's last line")
          .startsWith("DONE completed=" + INTENTS + " unfinished=0");
      System.out.println("backlog of " + INTENTS + " intents in -Xmx" + HEAP + ": " + done);
      assertThat(kit.ledger().size()).isEqualTo(INTENTS);
      kit.ledger().assertAtMostOneEffectPerIntent();
    }
    try (IntentStore store = MapDbIntentStore.open(file)) {
      assertThat(store.listUnfinishedIds()).isEmpty();
    }
  }

  /** Stores {@link #INTENTS} never-sent intents with {@link #BODY_BYTES}-byte bodies. */
  private static void fill(Path file, String url) throws Exception {
    String pad = "x".repeat(BODY_BYTES - 40);
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try (IntentStore store = MapDbIntentStore.open(file);
        IdempotentClient client = IdempotentClient.builder().store(store).build()) {
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < 32; t++) {
        int first = t;
        writers.add(pool.submit(() -> {
          for (int i = first; i < INTENTS; i += 32) {
            IntentSpec spec = IntentSpec.builder().scope("shop").operation("pay").post(url)
                .jsonBody("{\"order\":\"o-" + i + "\",\"pad\":\"" + pad + "\"}").build();
            store.create(client.newRecord(spec));
          }
          return null;
        }));
      }
      for (Future<?> f : writers) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
