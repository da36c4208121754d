package dev.oncely.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class EffectLedgerAwaitTest {
  @Test
  void waits_are_woken_by_commits_and_give_up_at_their_timeout() throws Exception {
    EffectLedger ledger = new EffectLedger();
    assertThat(ledger.awaitSize(1, Duration.ofMillis(20))).isFalse();

    Thread committer = new Thread(() -> {
      ledger.add("order-1", "k1", 1, false);
      ledger.add("order-2", "k2", 2, false);
    });
    committer.start();
    assertThat(ledger.awaitSize(2, Duration.ofSeconds(10))).isTrue();
    assertThat(ledger.awaitCountOf("order-1", 1, Duration.ofSeconds(10))).isTrue();
    assertThat(ledger.awaitCountOf("order-1", 2, Duration.ofMillis(20))).isFalse();
    committer.join();
  }
}
