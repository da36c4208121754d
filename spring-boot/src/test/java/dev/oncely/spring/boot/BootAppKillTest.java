package dev.oncely.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.postgres.SpringTestFixtures.Child;
import dev.oncely.postgres.SpringTestFixtures;
import dev.oncely.spring.boot.app.PaymentApp;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end story with real processes: a Boot application ({@link PaymentApp}) on a random
 * port pays orders through the starter against the testing kit's server, which drops and stalls
 * answers after committing; the application is killed with SIGKILL while payments are in flight,
 * started again on the same store, resumes on start-up, and the callers ask again for every order.
 * Every order ends with exactly one effect at the provider.
 */
class BootAppKillTest {
  private static final int ORDERS = 12;

  @TempDir
  Path dir;

  @Test
  void a_killed_and_restarted_app_pays_every_order_exactly_once() throws Exception {
    IdempotentServer kit = IdempotentServer.builder()
        .intentOf(IdempotentServer.jsonField("order"))
        .faults(FaultScript.builder().seed(21)
            .withProbability(Fault.dropAfterCommit(), 0.3)
            .withProbability(Fault.stallAfterCommit(), 0.2)
            .stallFor(Duration.ofSeconds(3)).build())
        .build();
    List<String> orders = new ArrayList<>();
    for (int i = 1; i <= ORDERS; i++) {
      orders.add("order-" + i);
    }
    Path storeFile = dir.resolve("store").resolve("intents.db");
    OkHttpClient callers = new OkHttpClient.Builder().readTimeout(Duration.ofSeconds(60)).build();
    try (MockWebServer provider = new MockWebServer()) {
      provider.setDispatcher(kit);
      provider.start();
      List<String> args = List.of("--server.port=0",
          "--provider.url=" + provider.url("/payments"),
          "--oncely.store.path=" + storeFile,
          "--oncely.retry.attempt-timeout=1s", "--oncely.retry.base-delay=50ms",
          "--oncely.retry.max-delay=200ms", "--oncely.retry.max-attempts=4",
          "--oncely.due-work.interval=300ms", "--logging.level.root=WARN",
          "--spring.main.banner-mode=off");

      try (Child first = SpringTestFixtures.startChild(PaymentApp.class, args, dir, "first")) {
        int port = port(first);
        for (String order : orders) {
          callers.newCall(pay(port, order)).enqueue(new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
              // The app was killed: the caller asks again after the restart.
            }

            @Override
            public void onResponse(Call call, Response response) {
              response.close();
            }
          });
        }
        awaitEffects(kit, ORDERS / 2);
        first.kill();
      }
      int effectsAtKill = kit.ledger().size();
      int unfinishedAtKill;
      try (IntentStore store = MapDbIntentStore.open(storeFile)) {
        unfinishedAtKill = store.listUnfinished().size();
      }

      try (Child second = SpringTestFixtures.startChild(PaymentApp.class, args, dir, "second")) {
        int port = port(second);
        for (String order : orders) {
          payUntilDone(callers, port, order, second);
        }
        second.kill();
      }

      assertThat(effectsAtKill).isGreaterThanOrEqualTo(ORDERS / 2);
      // The kill hit intents in flight (stalled answers), which the restart had to resume.
      assertThat(unfinishedAtKill).isPositive();
      kit.ledger().assertExactlyOneEffectEach(orders);
      kit.ledger().assertAtMostOneEffectPerIntent();
      assertThat(kit.ledger().size()).isEqualTo(ORDERS);
    } finally {
      callers.dispatcher().executorService().shutdownNow();
      kit.close();
    }
  }

  private static int port(Child child) throws Exception {
    return Integer.parseInt(child.awaitLine("PORT ", 120).substring("PORT ".length()).trim());
  }

  private static Request pay(int port, String order) {
    return new Request.Builder().url("http://127.0.0.1:" + port + "/orders/" + order + "/pay")
        .post(RequestBody.create(new byte[0])).build();
  }

  private static void awaitEffects(IdempotentServer kit, int count) throws InterruptedException {
    kit.ledger().awaitSize(count, Duration.ofSeconds(60));
  }

  /**
   * The caller's own retry: ask again (same order, so same intent) until the app answers 2xx. The
   * app's answer is what the next ask waits for, never a timed pause: the app answers only once
   * its drive of the intent ended (the call's own, with its attempts and backoff, or the start-up
   * resume or due-work drive it joined), so the next ask starts the next drive. The deadline only
   * bounds a broken app.
   */
  private static void payUntilDone(OkHttpClient callers, int port, String order, Child app)
      throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String last = "";
    int asks = 0;
    while (System.nanoTime() < until) {
      asks++;
      try (Response response = callers.newCall(pay(port, order)).execute()) {
        if (response.isSuccessful()) {
          return;
        }
        last = response.code() + " " + response.body().string();
      }
    }
    throw new AssertionError(order + " never completed in " + asks + " asks; last answer " + last
        + "; app stderr:\n" + app.stderrTail());
  }
}
