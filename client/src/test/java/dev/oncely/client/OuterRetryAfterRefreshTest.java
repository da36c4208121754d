package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.testing.ManualClock;
import dev.oncely.client.testing.RecordingSleeper;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Found by the interceptor property test: an untagged call whose app refreshed its token during
 * the drive, run again by an app interceptor outside ours, kept its key but continued under a
 * second record, in the scope of the fresh token's digest. The contract: a credential refresh of
 * the same account never turns one intent into two. The call's scope is now fixed by its first
 * run, like its key.
 */
class OuterRetryAfterRefreshTest {
  private static final String BODY = "{\"amount\":1000,\"currency\":\"JPY\"}";

  private final MockWebServer server = new MockWebServer();
  private final ManualClock clock = new ManualClock(Instant.parse("2026-12-02T08:00:00Z"));
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private volatile String token = "Bearer old";

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void an_outer_retry_after_a_refresh_finds_the_calls_one_record_and_sends_nothing_more()
      throws IOException {
    server.enqueue(new MockResponse.Builder().code(401).addHeader("WWW-Authenticate", "Bearer")
        .build());
    server.enqueue(new MockResponse.Builder().code(303).addHeader("Location", "/elsewhere")
        .build());
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build());
    server.start();
    IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder().store(store)
        .clock(clock).sleeper(new RecordingSleeper(clock))
        .retryPolicy(RetryPolicy.builder().maxAttempts(4).baseDelay(Duration.ofMillis(10))
            .attemptTimeout(Duration.ofSeconds(2)).deadline(Duration.ofMinutes(5)).build())
        .build();
    OkHttpClient.Builder app = new OkHttpClient.Builder()
        .authenticator((route, response) -> {
          token = "Bearer new";
          return response.request().newBuilder().header("Authorization", token).build();
        })
        .addInterceptor(chain -> {
          try {
            return chain.proceed(chain.request());
          } catch (IOException first) {
            return chain.proceed(chain.request());
          }
        })
        .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
            .header("Authorization", token).build()));
    OkHttpClient client = interceptor.installOn(app).build();
    Request payment = new Request.Builder().url(server.url("/payments"))
        .post(RequestBody.create(BODY, MediaType.get("application/json"))).build();

    // The 303 to the refreshed resend needs reconciliation; the outer retry is the same intent.
    assertThatThrownBy(() -> client.newCall(payment).execute().close())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(NeedsReconciliationException.class);

    List<IntentRecord> records = new ArrayList<>(store.listUnfinished());
    store.forEachFinished(records::add);
    assertThat(records).as("one call, one intent").hasSize(1);
    assertThat(records.get(0).state()).isEqualTo(IntentState.NEEDS_RECONCILIATION);
    assertThat(records.get(0).attempts()).isEqualTo(2);
    assertThat(server.getRequestCount()).isEqualTo(2);
  }
}
