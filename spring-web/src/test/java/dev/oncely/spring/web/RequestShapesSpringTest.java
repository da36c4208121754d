package dev.oncely.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.BodyTooLargeException;
import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentTag;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.event.IntentListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.StreamingHttpOutputMessage;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * Request shapes through {@link OncelyClientHttpRequestFactory}: a streamed body is read once in
 * bounded memory and refused past the limit before anything is stored or sent; a bodyless {@code
 * DELETE} that OkHttp resends by itself after its effect is counted and ends pending, never
 * rejected; a {@code 401} asks the app client's {@code Authenticator} and resends the same key.
 */
class RequestShapesSpringTest {
  private static final long LIMIT = 64 * 1024;

  private final MockWebServer server = new MockWebServer();
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private final IntentTag tag = IntentTag.builder().operation("shape").scope("tenant-7")
      .businessId("shape-1").build();

  @AfterEach
  void stop() {
    server.close();
  }

  private IdempotencyInterceptor interceptor() {
    return IdempotencyInterceptor.builder().store(store).listener(IntentListener.NONE)
        .maxBodyBytes(LIMIT)
        .retryPolicy(RetryPolicy.builder().maxAttempts(10).baseDelay(Duration.ofMillis(5))
            .maxDelay(Duration.ofMillis(20)).attemptTimeout(Duration.ofSeconds(2))
            .deadline(Duration.ofSeconds(20)).build())
        .build();
  }

  private RestClient restClient(OkHttpClient app) {
    return RestClient.builder().requestFactory(OncelyClientHttpRequestFactory
        .builder(interceptor()).okHttpClient(app).build()).build();
  }

  private IntentRecord record() {
    return store.findByBusinessId("tenant-7", "shape", "shape-1").orElseThrow();
  }

  private List<RecordedRequest> taken(String method) throws InterruptedException {
    List<RecordedRequest> all = new ArrayList<>();
    for (int i = 0; i < server.getRequestCount(); i++) {
      RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
      if (request.getMethod().equals(method)) {
        all.add(request);
      }
    }
    return all;
  }

  @Test
  void a_streamed_body_past_the_limit_is_refused_after_reading_about_the_limit() throws Exception {
    server.start();
    AtomicLong written = new AtomicLong();
    StreamingHttpOutputMessage.Body eightMegabytes = out -> {
      byte[] chunk = new byte[1024];
      for (int i = 0; i < 8 * 1024; i++) {
        out.write(chunk);
        written.addAndGet(chunk.length);
      }
    };

    assertThatThrownBy(() -> restClient(new OkHttpClient()).post()
        .uri(server.url("/files").uri()).attributes(IntentAttributes.of(tag))
        .contentType(MediaType.APPLICATION_OCTET_STREAM).body(eightMegabytes)
        .retrieve().toBodilessEntity())
        .isInstanceOf(ResourceAccessException.class)
        .cause().isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(BodyTooLargeException.class);

    assertThat(written.get()).as("bytes the app wrote before the refusal")
        .isLessThanOrEqualTo(LIMIT + 16 * 1024);
    assertThat(server.getRequestCount()).isZero();
    assertThat(store.findByBusinessId("tenant-7", "shape", "shape-1")).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(value = Protocol.class, names = {"HTTP_1_1", "H2_PRIOR_KNOWLEDGE"})
  void a_delete_resent_by_okhttp_after_its_effect_is_counted_and_ends_pending(Protocol protocol)
      throws Exception {
    server.setProtocols(List.of(protocol));
    server.start();
    RestClient client = restClient(new OkHttpClient.Builder().protocols(List.of(protocol))
        .build());
    server.enqueue(new MockResponse.Builder().code(200).body("warm").build());
    assertThat(client.get().uri(server.url("/warm").uri()).retrieve().body(String.class))
        .isEqualTo("warm");
    SocketEffect drop = protocol == Protocol.H2_PRIOR_KNOWLEDGE
        ? new SocketEffect.CloseStream(2) : new SocketEffect.CloseSocket(true, true, true);
    server.enqueue(new MockResponse.Builder().code(204).onResponseStart(drop).build());
    for (int i = 0; i < 10; i++) {
      server.enqueue(new MockResponse.Builder().code(404).build());
    }

    assertThatThrownBy(() -> client.delete().uri(server.url("/authorizations/a1").uri())
        .attributes(IntentAttributes.of(tag)).retrieve().toBodilessEntity())
        .isInstanceOf(UnknownOutcomeException.class);

    IntentRecord record = record();
    assertThat(record.state()).isEqualTo(IntentState.PENDING);
    assertThat(record.attempts()).as("each DELETE on the wire is a counted attempt")
        .isEqualTo(taken("DELETE").size());
  }

  @Test
  void a_401_asks_the_app_clients_authenticator_and_resends_the_same_key() throws Exception {
    server.start();
    OkHttpClient app = new OkHttpClient.Builder()
        .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
            .header("Authorization", "Bearer old").build()))
        .authenticator((route, response) -> response.request().newBuilder()
            .header("Authorization", "Bearer new").build())
        .build();
    server.enqueue(new MockResponse.Builder().code(401).build());
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"p1\"}").build());

    ResponseEntity<String> answer = restClient(app).post().uri(server.url("/payments").uri())
        .attributes(IntentAttributes.of(tag)).contentType(MediaType.APPLICATION_JSON)
        .body("{\"amount\":1}").retrieve().toEntity(String.class);

    assertThat(answer.getStatusCode().value()).isEqualTo(201);
    List<RecordedRequest> posts = taken("POST");
    assertThat(posts).extracting(r -> r.getHeaders().get("Authorization"))
        .containsExactly("Bearer old", "Bearer new");
    assertThat(posts).extracting(r -> r.getHeaders().get("Idempotency-Key"))
        .containsOnly(posts.get(0).getHeaders().get("Idempotency-Key"));
    assertThat(posts).extracting(r -> r.getBody().utf8()).containsOnly("{\"amount\":1}");
    assertThat(record().state()).isEqualTo(IntentState.COMPLETED);
  }
}
