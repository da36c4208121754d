package dev.oncely.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentTag;
import dev.oncely.client.PayloadMismatchException;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.event.IntentListener;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * A multipart form is one intent whatever its boundary, through the Spring factory: Spring's form
 * converter draws a new multipart boundary for every request, so a form re-issued after a lost
 * answer differs from the stored one only in its framing. It is the same intent, resent with the
 * stored bytes and boundary, with one effect; a form with a changed part is refused before any
 * I/O. Over HTTP/1.1 and h2c.
 */
class MultipartFormIntentTest {
  /** The h2 error code of a stream reset by a server that failed while answering. */
  private static final int INTERNAL_ERROR = 2;

  private final MockWebServer server = new MockWebServer();
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private IdempotentServer kit;

  /**
   * Starts the testing kit's server; with {@code loseFirstAnswer}, the first request takes its
   * effect and its answer is lost: the connection closes (HTTP/1.1) or the stream is reset with
   * {@code INTERNAL_ERROR} (h2).
   */
  private void start(Protocol protocol, boolean loseFirstAnswer) throws Exception {
    kit = IdempotentServer.builder().build();
    SocketEffect answerLost = protocol == Protocol.H2_PRIOR_KNOWLEDGE
        ? new SocketEffect.CloseStream(INTERNAL_ERROR)
        : new SocketEffect.CloseSocket(true, true, true);
    AtomicBoolean lose = new AtomicBoolean(loseFirstAnswer);
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        MockResponse answer = kit.dispatch(request);
        return lose.getAndSet(false)
            ? answer.newBuilder().onResponseStart(answerLost).build() : answer;
      }

      @Override
      public MockResponse peek() {
        // MockWebServer 5.3.2 takes an h2 exchange's socket effects from peek(), not from the
        // answer dispatch() returns.
        return lose.get() ? new MockResponse.Builder().onResponseStart(answerLost).build()
            : super.peek();
      }
    });
    if (protocol == Protocol.H2_PRIOR_KNOWLEDGE) {
      server.setProtocols(List.of(Protocol.H2_PRIOR_KNOWLEDGE));
    }
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** A new factory each time, as after a restart; one attempt per call. */
  private RestClient restClient(Protocol protocol) {
    IdempotencyInterceptor interceptor = IdempotencyInterceptor.builder().store(store)
        .listener(IntentListener.NONE)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).attemptTimeout(Duration.ofSeconds(5))
            .deadline(Duration.ofSeconds(30)).build())
        .build();
    OkHttpClient.Builder app = new OkHttpClient.Builder();
    if (protocol == Protocol.H2_PRIOR_KNOWLEDGE) {
      app.protocols(List.of(Protocol.H2_PRIOR_KNOWLEDGE));
    }
    return RestClient.builder().requestFactory(OncelyClientHttpRequestFactory
        .builder(interceptor).okHttpClient(app.build()).build()).build();
  }

  private ResponseEntity<String> upload(RestClient client, String amount) {
    MultiValueMap<String, Object> form = new LinkedMultiValueMap<>();
    form.add("amount", amount);
    form.add("invoice", new ByteArrayResource(new byte[] {'%', 'P', 'D', 'F', 1, 2, 3}) {
      @Override
      public String getFilename() {
        return "invoice-7.pdf";
      }
    });
    return client.post().uri(server.url("/invoices").uri())
        .attributes(IntentAttributes.of(IntentTag.builder().operation("upload-invoice")
            .scope("tenant-42").businessId("invoice-7").build()))
        .contentType(MediaType.MULTIPART_FORM_DATA)
        .body(form)
        .retrieve()
        .toEntity(String.class);
  }

  @ParameterizedTest
  @EnumSource(value = Protocol.class, names = {"HTTP_1_1", "H2_PRIOR_KNOWLEDGE"})
  void a_form_reissued_under_a_new_boundary_is_resent_with_its_stored_bytes_once(
      Protocol protocol) throws Exception {
    start(protocol, true);
    assertThatThrownBy(() -> upload(restClient(protocol), "1000"))
        .isInstanceOf(UnknownOutcomeException.class);
    IntentRecord pending = store.findByBusinessId("tenant-42", "upload-invoice", "invoice-7")
        .orElseThrow();

    assertThat(upload(restClient(protocol), "1000").getStatusCode().value()).isEqualTo(201);

    List<ReceivedRequest> sent = kit.requests().all();
    assertThat(sent).hasSize(2);
    assertThat(sent.get(1).body()).isEqualTo(sent.get(0).body()).isEqualTo(pending.body());
    assertThat(sent).extracting(r -> r.header("Content-Type"))
        .containsOnly(pending.mediaType());
    assertThat(pending.mediaType()).contains("boundary=");
    assertThat(kit.ledger().size()).isEqualTo(1);
    assertThat(store.get(pending.id()).orElseThrow().state()).isEqualTo(IntentState.COMPLETED);
  }

  @ParameterizedTest
  @EnumSource(value = Protocol.class, names = {"HTTP_1_1", "H2_PRIOR_KNOWLEDGE"})
  void a_form_with_a_changed_part_is_refused_before_any_io(Protocol protocol) throws Exception {
    start(protocol, false);
    upload(restClient(protocol), "1000");

    assertThatThrownBy(() -> upload(restClient(protocol), "999"))
        .isInstanceOf(ResourceAccessException.class)
        .cause().isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(PayloadMismatchException.class);
    assertThat(kit.requests().size()).isEqualTo(1);
  }
}
