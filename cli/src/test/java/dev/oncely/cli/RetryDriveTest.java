package dev.oncely.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.RetryPolicy;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.testing.Fault;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The CLI on records the real client left pending (the server took the request, the answer was
 * lost), and what the app does with them afterwards: {@code retry --drive} resends with the stored
 * key wire form and body bytes; {@code retry} sends nothing and the app's resume drives the record;
 * a resolved record is never resent.
 */
class RetryDriveTest {
  private final MockWebServer server = new MockWebServer();

  @TempDir Path dir;

  @BeforeEach
  void start() throws Exception {
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** The app sends once; the server takes the request and the answer never comes back. */
  private IntentId leavePending(Path file) {
    server.enqueue(Fault.stallAfterCommit().applyTo(new MockResponse.Builder()).build());
    try (IntentStore store = StoreEngine.parse(file.getFileName().toString().split("\\.")[0])
            .open(file);
        IdempotentClient app = IdempotentClient.builder()
            .store(store)
            .okHttpClient(new OkHttpClient.Builder().readTimeout(Duration.ofMillis(300)).build())
            .retryPolicy(RetryPolicy.builder().maxAttempts(1).build())
            .build()) {
      IntentOutcome outcome = app.execute(IntentSpec.builder()
          .operation("create-payment").scope("tenant-7").businessId("order-9")
          .post(server.url("/payments").toString())
          .body("{\"amount\":9}".getBytes(StandardCharsets.UTF_8), "application/json")
          .build());
      assertThat(outcome).isInstanceOf(IntentOutcome.Pending.class);
      return outcome.id();
    }
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void drive_sends_the_stored_key_and_body_with_credentials_from_a_file_and_completes(
      StoreEngine engine) throws Exception {
    Path file = dir.resolve(engine + ".db");
    IntentId id = leavePending(file);
    RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);
    server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"pay_9\"}").build());
    Path credentials = Files.writeString(dir.resolve("creds"),
        "# test account\nAuthorization: Bearer test-token\n");
    Files.setPosixFilePermissions(credentials,
        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

    CliRun run = CliRun.of(Clock.systemUTC(), "retry", "--business-id", "order-9", "--store",
        file.toString(), "--drive", "--header-file", credentials.toString(), "--author", "ops");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("driven, now COMPLETED", "last answer 201")
        .doesNotContain("test-token");
    RecordedRequest resent = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(resent.getHeaders().get("Idempotency-Key"))
        .isEqualTo(first.getHeaders().get("Idempotency-Key"));
    assertThat(resent.getBody().utf8()).isEqualTo("{\"amount\":9}");
    assertThat(resent.getHeaders().get("Authorization")).isEqualTo("Bearer test-token");
    try (IntentStore store = engine.open(file)) {
      IntentRecord after = store.get(id).orElseThrow();
      assertThat(after.state()).isEqualTo(IntentState.COMPLETED);
      assertThat(after.notes()).extracting(IntentRecord.Note::text)
          .containsExactly("driven from the CLI: retry requested");
    }
  }

  private static IdempotentClient app(IntentStore store) {
    return IdempotentClient.builder().store(store).build();
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void retry_sends_nothing_itself_and_the_apps_next_resume_drives_the_record(StoreEngine engine)
      throws Exception {
    Path file = dir.resolve(engine + ".db");
    IntentId id = leavePending(file);
    RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);

    CliRun run = CliRun.of(Clock.systemUTC(), "retry", id.safeKey(), "--store", file.toString());

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(server.getRequestCount()).isEqualTo(1);
    server.enqueue(new MockResponse.Builder().code(201).body("{}").build());
    try (IntentStore store = engine.open(file); IdempotentClient app = app(store)) {
      IntentOutcome outcome = app.resumePending().get(0).get(30, TimeUnit.SECONDS);
      assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
    }
    RecordedRequest resumed = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(resumed.getHeaders().get("Idempotency-Key"))
        .isEqualTo(first.getHeaders().get("Idempotency-Key"));
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void a_resolved_record_is_never_resent_by_the_app(StoreEngine engine) throws Exception {
    Path file = dir.resolve(engine + ".db");
    IntentId id = leavePending(file);

    CliRun run = CliRun.of(Clock.systemUTC(), "resolve", id.safeKey(), "--store", file.toString(),
        "--as", "completed", "--note", "found in the ledger");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    try (IntentStore store = engine.open(file); IdempotentClient app = app(store)) {
      assertThat(app.resumePending()).isEmpty();
      assertThat(app.resume(id).get(30, TimeUnit.SECONDS))
          .isInstanceOf(IntentOutcome.Completed.class);
    }
    assertThat(server.getRequestCount()).isEqualTo(1);
  }
}
