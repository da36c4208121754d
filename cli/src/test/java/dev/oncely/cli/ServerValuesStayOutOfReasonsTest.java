package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentIOException;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.NeedsReconciliationException;
import dev.oncely.client.PendingReason;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.event.LoggingListener;
import dev.oncely.persistence.StoreEngine;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A value the server sent (a redirect's {@code Location}, a status URL, a malformed {@code
 * Retry-After}) can hold an order id or a signed token. It never reaches a reason text, an event,
 * a log line, an exception message or the CLI's {@code show} without {@code --reveal}; the record
 * keeps it in the stored response, and {@code show --reveal} prints it.
 */
class ServerValuesStayOutOfReasonsTest {
  private static final String BODY = "{\"amount\":1200,\"currency\":\"EUR\"}";
  private static final MediaType JSON = MediaType.get("application/json");
  /** Marks every value the server sends in these answers. */
  private static final String SECRET = "ord7f3a-secret";
  private static final IntentTag TAG = IntentTag.builder().operation("create-payment")
      .scope("tenant-7").businessId("order-1").build();

  private final MockWebServer server = new MockWebServer();

  @TempDir Path dir;

  private final List<IntentEvent> events = new CopyOnWriteArrayList<>();
  private final List<String> logLines = new CopyOnWriteArrayList<>();
  private final Logger jul = Logger.getLogger("dev.oncely.client");
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord record) {
      logLines.add(record.getMessage());
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private Level levelBefore;

  @BeforeEach
  void startAndCaptureTheLog() throws IOException {
    server.start();
    levelBefore = jul.getLevel();
    jul.addHandler(capture);
    jul.setLevel(Level.ALL);
  }

  @AfterEach
  void stopAndReleaseTheLog() {
    jul.removeHandler(capture);
    jul.setLevel(levelBefore);
    server.close();
  }

  /** The two entry points. */
  enum Via { INTENT_API, INTERCEPTOR }

  /** What the server answers, what the intent ends as, and the value the server sent. */
  record ServerAnswer(String name, MockResponse submit, MockResponse poll, IntentState ends,
      String sentValue) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> answers() {
    List<ServerAnswer> answers = List.of(
        new ServerAnswer("303 to the result within the origin",
            new MockResponse.Builder().code(303)
                .addHeader("Location", "/orders/" + SECRET + "?sig=tok-" + SECRET).build(),
            null, IntentState.NEEDS_RECONCILIATION, "/orders/" + SECRET),
        new ServerAnswer("302 to another origin",
            new MockResponse.Builder().code(302)
                .addHeader("Location", "https://pay-" + SECRET + ".example.net/r/" + SECRET)
                .build(),
            null, IntentState.NEEDS_RECONCILIATION, "pay-" + SECRET + ".example.net"),
        new ServerAnswer("202 with a status URL, polls with a malformed Retry-After",
            new MockResponse.Builder().code(202)
                .addHeader("Location", "/status/op_" + SECRET)
                .addHeader("Retry-After", "soon, ref=" + SECRET).build(),
            new MockResponse.Builder().code(202)
                .addHeader("Retry-After", "soon, ref=" + SECRET).build(),
            IntentState.PENDING, "/status/op_" + SECRET));
    List<Arguments> all = new ArrayList<>();
    for (ServerAnswer answer : answers) {
      for (Via via : Via.values()) {
        all.add(Arguments.of(answer, via));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} via {1}")
  @MethodSource("answers")
  void a_value_the_server_sent_is_kept_in_the_stored_response_and_printed_only_with_reveal(
      ServerAnswer answer, Via via) throws Exception {
    serve(answer);
    Path file = dir.resolve("intents.sqlite");
    String thrown;
    IntentRecord record;
    try (IntentStore store = StoreEngine.SQLITE.open(file)) {
      thrown = via == Via.INTENT_API ? viaIntentApi(store) : viaInterceptor(store);
      record = store.findByBusinessId(TAG.scope(), TAG.operation(), TAG.businessId())
          .orElseThrow();
    }

    assertThat(record.state()).isEqualTo(answer.ends());
    assertThat(record.reason()).as("the reason names what happened").isNotBlank()
        .doesNotContain(SECRET);
    if (answer.ends() == IntentState.PENDING) {
      assertThat(record.reason()).startsWith(PendingReason.STILL_PROCESSING.name());
      assertThat(events).filteredOn(e -> e instanceof IntentEvent.MalformedRetryAfter)
          .isNotEmpty()
          .allSatisfy(e -> assertThat(((IntentEvent.MalformedRetryAfter) e).length())
              .isEqualTo(("soon, ref=" + SECRET).length()));
      assertThat(logLines).as("the log says a Retry-After was malformed, not what it said")
          .anyMatch(l -> l.contains("malformed Retry-After (" + ("soon, ref=" + SECRET).length()
              + " characters)"));
    } else {
      assertThat(record.reason()).contains("redirected the submit");
      assertThat(events).anyMatch(e -> e instanceof IntentEvent.NeedsReconciliation);
      assertThat(logLines).as("the reconciliation warning was logged")
          .anyMatch(l -> l.contains("needs reconciliation"));
    }
    assertThat(events).as("no event carries it").allSatisfy(
        e -> assertThat(e.toString()).doesNotContain(SECRET));
    assertThat(logLines).as("no log line carries it").isNotEmpty()
        .allSatisfy(l -> assertThat(l).doesNotContain(SECRET));
    assertThat(thrown).as("nor what the app is thrown").doesNotContain(SECRET);
    assertThat(record.lastResponse().headers() + " " + record.pollUrl())
        .as("the stored response (or the status URL) keeps it").contains(SECRET);

    String ref = record.id().safeKey();
    for (List<String> extra : List.of(List.<String>of(), List.of("--json"))) {
      List<String> args = new ArrayList<>(List.of("show", ref, "--store", file.toString()));
      args.addAll(extra);
      CliRun hidden = CliRun.of(Clock.systemUTC(), args.toArray(String[]::new));
      args.add("--reveal");
      CliRun revealed = CliRun.of(Clock.systemUTC(), args.toArray(String[]::new));

      assertThat(hidden.exitCode()).as(hidden.toString()).isZero();
      assertThat(hidden.out()).as("show %s without --reveal", extra).doesNotContain(SECRET)
          .contains("<redacted>");
      assertThat(revealed.exitCode()).as(revealed.toString()).isZero();
      assertThat(revealed.out()).as("show %s --reveal", extra).contains(answer.sentValue());
    }
  }

  private String viaIntentApi(IntentStore store) {
    try (IdempotentClient client = IdempotentClient.builder().store(store).retryPolicy(policy())
        .listener(IntentListener.all(LoggingListener.instance(), events::add)).build()) {
      IntentOutcome outcome = client.execute(IntentSpec.builder().operation(TAG.operation())
          .scope(TAG.scope()).businessId(TAG.businessId())
          .post(server.url("/payments").toString()).jsonBody(BODY).build());
      return outcome.toString();
    }
  }

  private String viaInterceptor(IntentStore store) throws IOException {
    IdempotencyInterceptor oncely = IdempotencyInterceptor.builder().store(store)
        .retryPolicy(policy())
        .listener(IntentListener.all(LoggingListener.instance(), events::add)).build();
    OkHttpClient app = oncely.installOn(new OkHttpClient.Builder()).build();
    Request request = new Request.Builder().url(server.url("/payments"))
        .post(RequestBody.create(BODY, JSON)).tag(IntentTag.class, TAG).build();
    try (Response response = app.newCall(request).execute()) {
      return "answered " + response.code();
    } catch (IntentIOException | NeedsReconciliationException e) {
      return e + " " + e.getCause();
    } finally {
      oncely.close();
    }
  }

  private static RetryPolicy policy() {
    return RetryPolicy.builder().maxAttempts(3).baseDelay(Duration.ofMillis(5))
        .maxDelay(Duration.ofMillis(20)).attemptTimeout(Duration.ofSeconds(5))
        .deadline(Duration.ofSeconds(30)).build();
  }

  private void serve(ServerAnswer answer) {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return request.getMethod().equals("GET") && answer.poll() != null
            ? answer.poll() : answer.submit();
      }
    });
  }
}
