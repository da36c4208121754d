package dev.oncely.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentPendingException;
import dev.oncely.client.IntentTag;
import dev.oncely.client.PayloadMismatchException;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.event.IntentListener;
import dev.oncely.testing.Fault;
import java.net.SocketTimeoutException;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

/**
 * An unknown outcome through a real {@link RestClient} (and {@link RestTemplate}) on {@link
 * OncelyClientHttpRequestFactory}: the server stalls every answer, each attempt times out, the
 * drive reaches its deadline, and the app gets an {@link UnknownOutcomeException} (a {@link
 * ResourceAccessException}) carrying the {@code Pending} outcome, never a bare socket error; a
 * refusal before any I/O stays a plain {@code ResourceAccessException}.
 */
class UnknownOutcomeTest {
  private static final String BODY = "{\"order\":\"order-7\",\"amount\":1000}";
  private static final IntentTag ORDER = IntentTag.builder().operation("create-payment")
      .scope("tenant-42").businessId("order-7").build();

  private final MockWebServer server = new MockWebServer();

  @BeforeEach
  void start() throws Exception {
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
  }

  private final InMemoryIntentStore store = new InMemoryIntentStore();

  private OncelyClientHttpRequestFactory factory() {
    return OncelyClientHttpRequestFactory.builder(IdempotencyInterceptor.builder().store(store)
        .listener(IntentListener.NONE)
        .retryPolicy(RetryPolicy.builder().maxAttempts(20).baseDelay(Duration.ofMillis(5))
            .maxDelay(Duration.ofMillis(10)).attemptTimeout(Duration.ofMillis(250))
            .deadline(Duration.ofMillis(900)).build())
        .build()).build();
  }

  private void stallEverything() {
    for (int i = 0; i < 20; i++) {
      server.enqueue(Fault.stallAfterCommit().applyTo(new MockResponse.Builder().code(201))
          .build());
    }
  }

  private static String pay(RestClient client, String url, String body) {
    return client.post().uri(url)
        .attributes(IntentAttributes.of(ORDER))
        .contentType(MediaType.APPLICATION_JSON)
        .body(body)
        .retrieve()
        .body(String.class);
  }

  @Test
  void a_stalled_intent_past_its_deadline_reaches_the_app_with_its_pending_outcome() {
    stallEverything();
    OncelyClientHttpRequestFactory factory = factory();
    RestClient client = RestClient.builder().requestFactory(factory).build();
    String url = server.url("/payments?token=secret").toString();

    assertThatThrownBy(() -> pay(client, url, BODY))
        .isInstanceOf(ResourceAccessException.class)
        .isInstanceOfSatisfying(UnknownOutcomeException.class, e -> {
          assertThat(e.outcome()).isInstanceOfSatisfying(IntentOutcome.Pending.class, p -> {
            assertThat(p.reason()).isEqualTo(PendingReason.DEADLINE_EXCEEDED);
            assertThat(p.id().scope()).isEqualTo("tenant-42");
            assertThat(p.cause()).isInstanceOf(SocketTimeoutException.class);
          });
          assertThat(e.getCause()).isInstanceOf(IntentIOException.class)
              .hasCauseInstanceOf(IntentPendingException.class);
          assertThat(e.getMessage()).contains("POST http://").doesNotContain("secret");
        });

    // The same outcome by tag, from the interceptor under the factory.
    assertThat(factory.interceptor().outcomeOf(ORDER)).get()
        .isInstanceOfSatisfying(IntentOutcome.Pending.class,
            p -> assertThat(p.reason()).isEqualTo(PendingReason.DEADLINE_EXCEEDED));
    assertThat(server.getRequestCount()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void rest_template_reports_the_unknown_outcome_the_same_way() {
    stallEverything();
    RestTemplate template = new RestTemplate(factory());
    org.springframework.http.HttpHeaders headers = new org.springframework.http.HttpHeaders();
    headers.setContentType(MediaType.APPLICATION_JSON);

    // Without the intent attribute the key lives for the call only; the outcome is as unknown.
    assertThatThrownBy(() -> template.postForObject(server.url("/payments").uri(),
        new org.springframework.http.HttpEntity<>(BODY, headers), String.class))
        .isInstanceOfSatisfying(UnknownOutcomeException.class, e -> assertThat(e.outcome())
            .isInstanceOf(IntentOutcome.Pending.class));
  }

  @Test
  void a_refusal_before_any_io_stays_a_plain_resource_access_exception() {
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"pay_1\"}").build());
    RestClient client = RestClient.builder().requestFactory(factory()).build();
    String url = server.url("/payments").toString();
    pay(client, url, BODY);

    assertThatThrownBy(() -> pay(client, url, "{\"order\":\"order-7\",\"amount\":5}"))
        .isExactlyInstanceOf(ResourceAccessException.class)
        .cause().isInstanceOfSatisfying(IntentIOException.class, e -> {
          assertThat(e.getCause()).isInstanceOf(PayloadMismatchException.class);
          assertThat(e.outcome()).isEmpty();
        });
    assertThat(server.getRequestCount()).isEqualTo(1);
  }
}
