package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;

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
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Found by the interceptor property test: an untagged call whose app refreshed its token during
 * the drive, run again by an app interceptor outside ours, keeps its key but continues under a
 * second record, in the scope of the fresh token's digest; the first record stays unfinished
 * although the call completed. The contract: a credential refresh of the same account never turns
 * one intent into two.
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

  @Disabled("engine gap: the untagged scope is recomputed from the refreshed Authorization on"
      + " the chain's second run (InterceptedCall.intentIdOf), so one call makes two records")
  @Test
  void an_outer_retry_after_a_refresh_continues_the_calls_one_record() throws IOException {
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

    try (Response response = client.newCall(payment).execute()) {
      assertThat(response.code()).isEqualTo(201);
    }

    List<IntentRecord> records = new ArrayList<>(store.listUnfinished());
    store.forEachFinished(records::add);
    assertThat(server.getRequestCount()).isEqualTo(3);
    assertThat(records).as("one call, one intent").hasSize(1);
    assertThat(records.get(0).attempts()).isEqualTo(3);
  }
}
