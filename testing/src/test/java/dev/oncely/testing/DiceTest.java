package dev.oncely.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DiceTest {
  @Test
  void the_same_seed_name_and_number_always_roll_the_same_value() {
    Dice a = Dice.seeded(42);
    Dice b = Dice.seeded(42);
    for (int n = 0; n < 100; n++) {
      assertThat(a.roll("order-" + n, n)).isEqualTo(b.roll("order-" + n, n)).isNotNegative();
    }
    assertThat(Dice.seeded(43).roll("order-1", 1)).isNotEqualTo(a.roll("order-1", 1));
    assertThat(a.roll("order-1", 2)).isNotEqualTo(a.roll("order-1", 1));
  }

  @Test
  void percent_hits_about_that_share_of_the_pairs() {
    Dice dice = Dice.seeded(7);
    int hits = 0;
    for (int n = 0; n < 10_000; n++) {
      hits += dice.percent("intent-" + n, 1, 10) ? 1 : 0;
    }
    assertThat(hits).isBetween(800, 1200);
    assertThat(dice.percent("x", 1, 0)).isFalse();
    assertThat(dice.percent("x", 1, 100)).isTrue();
  }

  @Test
  void percent_outside_0_to_100_is_refused_with_its_name() {
    assertThatThrownBy(() -> Dice.seeded(1).percent("x", 1, 101))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("percent");
  }
}
