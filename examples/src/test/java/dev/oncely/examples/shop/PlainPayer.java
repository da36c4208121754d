package dev.oncely.examples.shop;

import java.io.IOException;
import java.time.Duration;

/**
 * A client on plain OkHttp with its own key, as careful code without Oncely writes it: resend the
 * same key and body until a final answer ({@code 201}, or a business {@code 400}/{@code 402});
 * after a refused or dropped connection wait for the shop to come back (or 2 s); after {@code
 * 409}, {@code 503} or {@code 202} wait {@code Retry-After} (woken early by a restart).
 */
final class PlainPayer {
  private final ShopKillRig rig;
  private final ShopHttp http;

  PlainPayer(ShopKillRig rig) {
    this.rig = rig;
    this.http = new ShopHttp(rig.baseUrl(), Duration.ofSeconds(30));
  }

  /** One attempt, as the first send of a payment. */
  ShopHttp.Answer payOnce(String key, String body) throws IOException {
    return http.pay("\"" + key + "\"", body);
  }

  /**
   * Pays until a final answer, within {@code patience}.
   *
   * @throws AssertionError on an answer no retry can fix, or when patience runs out
   */
  ShopHttp.Answer payUntilFinal(String key, String body, Duration patience)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    String last = "nothing";
    while (System.nanoTime() < deadline) {
      long seen = rig.generation();
      try {
        ShopHttp.Answer a = payOnce(key, body);
        switch (a.status()) {
          case 201, 400, 402 -> {
            return a;
          }
          case 409, 503, 202 -> {
            last = a.status() + " " + a.text();
            long seconds = a.retryAfter() == null ? 1 : Long.parseLong(a.retryAfter());
            rig.awaitNewer(seen, Duration.ofSeconds(Math.max(1, seconds)));
          }
          default -> throw new AssertionError("unexpected answer " + a.status() + ": " + a.text());
        }
      } catch (IOException e) {
        last = e.toString();
        rig.awaitNewer(seen, Duration.ofSeconds(2));
      }
    }
    throw new AssertionError("no final answer within " + patience + "; last: " + last);
  }
}
