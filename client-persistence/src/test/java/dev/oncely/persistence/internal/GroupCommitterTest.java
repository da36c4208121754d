package dev.oncely.persistence.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GroupCommitterTest {

  /** A transaction log in memory: writes reach {@code durable} only when committed. */
  static final class Log implements GroupCommitter.Transactions<List<String>> {
    final List<String> durable = new ArrayList<>();
    final List<Integer> batchSizes = new ArrayList<>();
    final CountDownLatch firstCommitEntered = new CountDownLatch(1);
    final CountDownLatch releaseFirstCommit = new CountDownLatch(1);
    volatile boolean failNextCommit;

    @Override
    public List<String> begin() {
      return new ArrayList<>();
    }

    @Override
    public void commit(List<String> txn) {
      if (batchSizes.isEmpty()) {
        firstCommitEntered.countDown();
        try {
          releaseFirstCommit.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      batchSizes.add(txn.size());
      if (failNextCommit) {
        failNextCommit = false;
        throw new IllegalStateException("disk full");
      }
      durable.addAll(txn);
    }

    @Override
    public void rollback(List<String> txn) {
      txn.clear();
    }
  }

  @Test
  void writes_arriving_during_a_commit_share_the_next_commit_and_wait_for_it() throws Exception {
    Log log = new Log();
    ExecutorService pool = Executors.newFixedThreadPool(9);
    try (GroupCommitter<List<String>> committer = new GroupCommitter<>("test", log, 256)) {
      Future<?> first = pool.submit(() -> committer.execute(txn -> txn.add("first")));
      assertThat(log.firstCommitEntered.await(30, TimeUnit.SECONDS)).isTrue();
      List<Future<?>> waiting = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        int n = i;
        waiting.add(pool.submit(() -> committer.execute(txn -> txn.add("w" + n))));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (committer.queuedWrites() < 8 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(committer.queuedWrites()).isEqualTo(8);
      for (Future<?> f : waiting) {
        assertThat(f.isDone()).as("acknowledged before its commit").isFalse();
      }
      log.releaseFirstCommit.countDown();
      first.get(30, TimeUnit.SECONDS);
      for (Future<?> f : waiting) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(log.durable).hasSize(9);
    assertThat(log.batchSizes).containsExactly(1, 8);
  }

  @Test
  void a_failing_write_fails_alone_and_the_others_commit() {
    Log log = new Log();
    log.releaseFirstCommit.countDown();
    try (GroupCommitter<List<String>> committer = new GroupCommitter<>("test", log, 256)) {
      committer.execute(txn -> txn.add("a"));
      assertThatThrownBy(() -> committer.execute(txn -> {
        throw new IllegalArgumentException("refused");
      })).isInstanceOf(IllegalArgumentException.class).hasMessage("refused");
      committer.execute(txn -> txn.add("b"));
    }
    assertThat(log.durable).containsExactly("a", "b");
  }

  @Test
  void a_failed_commit_fails_its_callers_with_a_store_exception() {
    Log log = new Log();
    log.releaseFirstCommit.countDown();
    try (GroupCommitter<List<String>> committer = new GroupCommitter<>("test", log, 256)) {
      committer.execute(txn -> txn.add("first"));
      log.failNextCommit = true;
      assertThatThrownBy(() -> committer.execute(txn -> txn.add("lost")))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("test")
          .hasRootCauseMessage("disk full");
      committer.execute(txn -> txn.add("kept"));
    }
    assertThat(log.durable).containsExactly("first", "kept");
  }

  @Test
  void a_lone_caller_commits_on_its_own_thread() {
    List<Thread> committers = new ArrayList<>();
    GroupCommitter.Transactions<List<String>> onCaller = new GroupCommitter.Transactions<>() {
      @Override
      public List<String> begin() {
        return new ArrayList<>();
      }

      @Override
      public void commit(List<String> txn) {
        committers.add(Thread.currentThread());
      }

      @Override
      public void rollback(List<String> txn) {
        txn.clear();
      }
    };
    try (GroupCommitter<List<String>> committer = new GroupCommitter<>("test", onCaller, 256)) {
      committer.execute(txn -> txn.add("a"));
      committer.execute(txn -> txn.add("b"));
    }
    assertThat(committers).containsExactly(Thread.currentThread(), Thread.currentThread());
  }

  @Test
  void an_interrupted_caller_is_committed_and_keeps_its_interrupt_flag() {
    Log log = new Log();
    log.releaseFirstCommit.countDown();
    try (GroupCommitter<List<String>> committer = new GroupCommitter<>("test", log, 256)) {
      Thread.currentThread().interrupt();
      committer.execute(txn -> txn.add("a"));
      assertThat(Thread.interrupted()).isTrue();
    }
    assertThat(log.durable).containsExactly("a");
  }

  @Test
  void close_waits_for_every_queued_write() throws Exception {
    Log log = new Log();
    ExecutorService pool = Executors.newFixedThreadPool(5);
    GroupCommitter<List<String>> committer = new GroupCommitter<>("test", log, 256);
    try {
      Future<?> first = pool.submit(() -> committer.execute(txn -> txn.add("first")));
      assertThat(log.firstCommitEntered.await(30, TimeUnit.SECONDS)).isTrue();
      List<Future<?>> queued = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int n = i;
        queued.add(pool.submit(() -> committer.execute(txn -> txn.add("q" + n))));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (committer.queuedWrites() < 3 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      Future<?> closing = pool.submit(committer::close);
      log.releaseFirstCommit.countDown();
      closing.get(30, TimeUnit.SECONDS);
      first.get(30, TimeUnit.SECONDS);
      for (Future<?> f : queued) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(log.durable).hasSize(4);
  }

  @Test
  void closed_committer_refuses_writes() {
    Log log = new Log();
    log.releaseFirstCommit.countDown();
    GroupCommitter<List<String>> committer = new GroupCommitter<>("test", log, 256);
    committer.close();
    committer.close();
    assertThatThrownBy(() -> committer.execute(txn -> txn.add("x")))
        .isInstanceOf(StoreException.class).hasMessageContaining("closed");
  }
}
