package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.event.IntentListener;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A multipart form is one intent whatever boundary OkHttp draws for it. The
 * first tagged upload takes effect and its answer is lost; the app builds the same form again
 * (a new {@link MultipartBody}, so a new boundary) under the same business id. That is the same
 * intent: it is resent with the bytes and boundary stored before the first send, and the server
 * counts one effect. A form with a changed part is refused before any I/O. Through {@code
 * installOn} and a plain {@code followRedirects(false)} client, over HTTP/1.1 and h2c, against the
 * testing kit's server, which compares payloads by their exact bytes.
 */
class MultipartIntentTest {
  private static final MediaType PDF = MediaType.get("application/pdf");
  private static final byte[] INVOICE = {'%', 'P', 'D', 'F', 1, 2, 3};
  /** The h2 error code of a stream reset by a server that failed while answering. */
  private static final int INTERNAL_ERROR = 2;

  private final MockWebServer server = new MockWebServer();
  private final InMemoryIntentStore store = new InMemoryIntentStore();
  private IdempotentServer kit;

  /** How the app put the interceptor on its client. */
  enum Setup {
    INSTALL_ON, PLAIN_NO_REDIRECTS;

    OkHttpClient client(IdempotencyInterceptor interceptor, Protocol protocol) {
      OkHttpClient.Builder builder = this == INSTALL_ON
          ? interceptor.installOn(new OkHttpClient.Builder())
          : new OkHttpClient.Builder().followRedirects(false).addInterceptor(interceptor);
      if (protocol == Protocol.H2_PRIOR_KNOWLEDGE) {
        builder.protocols(List.of(Protocol.H2_PRIOR_KNOWLEDGE));
      }
      return builder.build();
    }
  }

  static Stream<Arguments> setups() {
    return Stream.of(Setup.values()).flatMap(setup -> Stream.of(Protocol.HTTP_1_1,
        Protocol.H2_PRIOR_KNOWLEDGE).map(protocol -> Arguments.of(setup, protocol)));
  }

  /**
   * Starts the testing kit's server; with {@code loseFirstAnswer}, the first request takes its
   * effect and its answer is lost: the connection closes (HTTP/1.1) or the stream is reset with
   * {@code INTERNAL_ERROR} (h2).
   */
  private void start(Protocol protocol, boolean loseFirstAnswer) throws IOException {
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
        // answer dispatch() returns (so the kit's own Fault.dropAfterCommit() is lost over h2).
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

  /** One attempt per call: a lost answer leaves the intent pending for the app to re-issue. */
  private IdempotencyInterceptor interceptor() {
    return IdempotencyInterceptor.builder().store(store).listener(IntentListener.NONE)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).attemptTimeout(Duration.ofSeconds(5))
            .deadline(Duration.ofSeconds(30)).build())
        .build();
  }

  private static IntentTag tag() {
    return IntentTag.builder().operation("upload-invoice").scope("tenant-42")
        .businessId("invoice-7").build();
  }

  /** The app's form, built afresh on every call: OkHttp draws a new random boundary each time. */
  private static MultipartBody form(String amount) {
    return new MultipartBody.Builder().setType(MultipartBody.FORM)
        .addFormDataPart("amount", amount)
        .addFormDataPart("invoice", "invoice-7.pdf", RequestBody.create(INVOICE, PDF))
        .build();
  }

  private Request upload(MultipartBody form) {
    return new Request.Builder().url(server.url("/invoices")).tag(IntentTag.class, tag())
        .post(form).build();
  }

  private static byte[] bytesOf(RequestBody body) throws IOException {
    Buffer buffer = new Buffer();
    body.writeTo(buffer);
    return buffer.readByteArray();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("setups")
  void a_form_reissued_under_a_new_boundary_is_resent_with_its_stored_bytes_once(Setup setup,
      Protocol protocol) throws Exception {
    start(protocol, true);
    MultipartBody first = form("1000");
    MultipartBody again = form("1000");
    assertThat(again.boundary()).isNotEqualTo(first.boundary());

    assertThatThrownBy(() -> setup.client(interceptor(), protocol).newCall(upload(first))
        .execute())
        .isInstanceOf(IntentIOException.class)
        .hasCauseInstanceOf(IntentPendingException.class);
    IntentRecord pending = store.findByBusinessId("tenant-42", "upload-invoice", "invoice-7")
        .orElseThrow();
    assertThat(pending.state()).isEqualTo(IntentState.PENDING);

    try (Response response = setup.client(interceptor(), protocol).newCall(upload(again))
        .execute()) {
      assertThat(response.code()).isEqualTo(201);
      assertThat(response.protocol()).isEqualTo(protocol);
    }

    List<ReceivedRequest> sent = kit.requests().all();
    assertThat(sent).hasSize(2);
    assertThat(sent).extracting(r -> r.header(IdempotentServer.DEFAULT_KEY_HEADER))
        .containsOnly("\"" + pending.id().key() + "\"");
    assertThat(sent.get(1).body()).as("the resend carries the stored bytes")
        .isEqualTo(sent.get(0).body()).isEqualTo(bytesOf(first))
        .isNotEqualTo(bytesOf(again));
    assertThat(sent).extracting(r -> r.header("Content-Type"))
        .containsOnly(first.contentType().toString());
    assertThat(kit.ledger().countOf(pending.id().key())).isEqualTo(1);
    assertThat(kit.ledger().size()).isEqualTo(1);
    assertThat(store.get(pending.id()).orElseThrow().state()).isEqualTo(IntentState.COMPLETED);
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("setups")
  void a_form_with_a_changed_part_is_a_payload_mismatch_before_any_io(Setup setup,
      Protocol protocol) throws Exception {
    start(protocol, false);
    setup.client(interceptor(), protocol).newCall(upload(form("1000"))).execute().close();

    assertThatThrownBy(() -> setup.client(interceptor(), protocol).newCall(upload(form("999")))
        .execute())
        .isInstanceOf(IntentIOException.class)
        .cause().isInstanceOf(PayloadMismatchException.class)
        .hasMessageContaining("different payload")
        .hasMessageNotContaining("needs a new intent");
    assertThat(kit.requests().size()).isEqualTo(1);

    try (Response repeat = setup.client(interceptor(), protocol).newCall(upload(form("1000")))
        .execute()) {
      assertThat(repeat.header(IdempotencyInterceptor.STORED_RESPONSE_HEADER)).isEqualTo("true");
    }
    assertThat(kit.requests().size()).isEqualTo(1);
  }

  /** The intent API keeps the same promise: its record is resent as stored (AttemptBridge). */
  @Test
  void the_intent_api_resends_a_stored_form_with_its_own_boundary() throws Exception {
    start(Protocol.HTTP_1_1, true);
    MultipartBody first = form("1000");
    MultipartBody again = form("1000");
    try (IdempotentClient client = IdempotentClient.builder().store(store)
        .listener(IntentListener.NONE)
        .retryPolicy(RetryPolicy.builder().maxAttempts(1).attemptTimeout(Duration.ofSeconds(5))
            .deadline(Duration.ofSeconds(30)).build())
        .build()) {
      assertThat(client.execute(spec(first))).isInstanceOf(IntentOutcome.Pending.class);
      assertThat(client.execute(spec(again))).isInstanceOf(IntentOutcome.Completed.class);
    }

    List<ReceivedRequest> sent = kit.requests().all();
    assertThat(sent).hasSize(2);
    assertThat(sent).extracting(ReceivedRequest::body)
        .allSatisfy(body -> assertThat(body).isEqualTo(bytesOf(first)));
    assertThat(sent).extracting(r -> r.header("Content-Type"))
        .containsOnly(first.contentType().toString());
    assertThat(kit.ledger().size()).isEqualTo(1);
  }

  private IntentSpec spec(MultipartBody form) throws IOException {
    return IntentSpec.builder().operation("upload-invoice").scope("tenant-42")
        .businessId("invoice-7").post(server.url("/invoices").toString())
        .body(bytesOf(form), form.contentType().toString()).build();
  }
}
