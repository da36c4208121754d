package dev.oncely.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The demo's Oncely-to-Oncely lane end to end, small: the load driver and the reference shop each
 * in a real child JVM, each SIGKILLed once at its seeded point and restarted on its files; every
 * order ends with exactly one payment at the shop and one charge at the provider.
 */
class ShopLaneTest {
  @Test
  void the_oncely_client_pays_through_the_oncely_server_exactly_once_across_both_sigkills()
      throws InterruptedException {
    DemoSettings settings = DemoSettings.builder()
        .intents(80)
        .concurrency(8)
        .seed(42)
        .classPath(System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path")))
        .build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Demo demo = new Demo(settings,
        new ProgressBar(new PrintStream(err, true, StandardCharsets.UTF_8), false));

    int code = demo.runShopLane(new PrintStream(out, true, StandardCharsets.UTF_8));

    assertThat(code).as("exit code; progress:%n%s%nout:%n%s", err, out).isZero();
    ShopLaneReport lane = demo.shopLaneResult();
    ShopLane plan = new ShopLane(settings, new ProgressBar(System.err, false));
    assertThat(lane.clientKilledAt()).as("the client was killed mid-run")
        .isGreaterThanOrEqualTo(plan.clientKillAt()).isLessThan(80);
    assertThat(lane.shopKilledAt()).as("the shop was killed while the resumed client paid")
        .isGreaterThan(lane.clientKilledAt()).isLessThan(80);
    assertThat(lane.completed()).isEqualTo(80);
    assertThat(lane.shopDuplicates()).isZero();
    assertThat(lane.shopLost()).isZero();
    assertThat(lane.shop().effects()).isEqualTo(80);
    assertThat(lane.providerDuplicates()).isZero();
    assertThat(lane.providerLost()).isZero();
    assertThat(lane.provider().effects()).isEqualTo(80);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("client -> shop").contains("shop JVM SIGKILLed")
        .contains("every payment made exactly once across a client SIGKILL and a server SIGKILL");
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("client SIGKILL (pid ")
        .contains("shop SIGKILL (pid ");
  }
}
