package dev.oncely.cli;

import static dev.oncely.cli.ServerReceipts.OPERATION;
import static dev.oncely.cli.ServerReceipts.SCOPE;
import static dev.oncely.cli.ServerReceipts.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ServerAnswer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code receipts list|show|resolve} on real MapDB and SQLite files holding receipts that {@link
 * dev.oncely.server.IdempotentEndpoints} wrote, and the intent commands' refusal of receipts.
 */
class ReceiptCommandsTest {
  /** 42 minutes after the receipts were written: every 30 s lease has run out. */
  private static final Clock LATER = Clock.fixed(T0.plus(Duration.ofMinutes(42)), ZoneOffset.UTC);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ANSWER = "{\"id\":\"ord_77\",\"status\":\"paid\"}";

  @TempDir Path dir;

  private Path file(StoreEngine engine) {
    return dir.resolve("receipts-" + engine + ".db");
  }

  private static IntentRecord record(StoreEngine engine, Path file, String key) {
    try (IntentStore store = engine.open(file)) {
      return store.get(IntentId.of(SCOPE, OPERATION, key)).orElseThrow();
    }
  }

  private Path answerFile(String json) throws Exception {
    Path f = dir.resolve("answer-" + System.nanoTime() + ".json");
    Files.writeString(f, json);
    return f;
  }

  /** One receipt in each state: completed, released, pending (twice), processing (lapsed). */
  private Path everyState(StoreEngine engine) throws Exception {
    Path file = file(engine);
    ServerReceipts server = ServerReceipts.open(engine, file);
    server.send("k-done", context -> ServerAnswer.json(201, ANSWER));
    server.send("k-failed", context -> ServerAnswer.json(503, "{}"));
    server.pending("k-pending", "charge ch_1");
    server.send("k-committed", context -> {
      context.effectsCommitted("ord_9");
      return ServerAnswer.json(500, "{}");
    });
    server.dieInHandler("k-running");
    return file;
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void list_shows_processing_and_pending_receipts_with_operation_hash_state_age_lease_reference_and_reason(
      StoreEngine engine) throws Exception {
    Path file = everyState(engine);
    IntentId pending = IntentId.of(SCOPE, OPERATION, "k-pending");
    IntentId running = IntentId.of(SCOPE, OPERATION, "k-running");

    CliRun run = CliRun.of(LATER, "receipts", "list", "--store", file.toString());

    assertThat(run.exitCode()).as(run.toString()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).contains("KEY HASH", "STATE", "AGE", "SCOPE/OPERATION",
        "LEASE OWNER", "LEASE", "RUNS", "REFERENCE", "REASON");
    assertThat(run.out()).contains(pending.safeKey(), running.safeKey(),
        "3 unfinished receipts: 1 processing (1 with a lease that ran out), 2 pending");
    String pendingRow = lines.stream().filter(l -> l.contains(pending.safeKey())).findFirst()
        .orElseThrow();
    assertThat(pendingRow).contains("PENDING", "42m00s", "tenant-7/create-order", "web-1",
        "charge ch_1", "the provider did not answer");
    String runningRow = lines.stream().filter(l -> l.contains(running.safeKey())).findFirst()
        .orElseThrow();
    assertThat(runningRow).contains("PROCESSING", "web-1", "ran out 41m30s ago");
    assertThat(run.out()).doesNotContain(IntentId.of(SCOPE, OPERATION, "k-done").safeKey(),
        IntentId.of(SCOPE, OPERATION, "k-failed").safeKey(), "k-pending", "4242-secret");
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void list_json_filters_by_state_and_operation(StoreEngine engine) throws Exception {
    Path file = everyState(engine);

    CliRun processing = CliRun.of(LATER, "receipts", "list", "--store", file.toString(),
        "--json", "--state", "processing");
    CliRun otherOperation = CliRun.of(LATER, "receipts", "list", "--store", file.toString(),
        "--json", "--operation", "refund-order");
    CliRun finished = CliRun.of(LATER, "receipts", "list", "--store", file.toString(),
        "--state", "completed");

    assertThat(processing.exitCode()).as(processing.toString()).isZero();
    JsonNode array = JSON.readTree(processing.out());
    assertThat(array).hasSize(1);
    assertThat(array.get(0).get("state").asText()).isEqualTo("PROCESSING");
    assertThat(array.get(0).get("leaseOwner").asText()).isEqualTo("web-1");
    assertThat(array.get(0).get("leaseRanOut").asBoolean()).isTrue();
    assertThat(array.get(0).get("ageSeconds").asLong()).isEqualTo(42 * 60);
    assertThat(array.get(0).has("key")).isFalse();
    assertThat(JSON.readTree(otherOperation.out())).isEmpty();
    assertThat(finished.exitCode()).isEqualTo(OncelyCli.EXIT_USAGE);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void show_finds_a_receipt_by_key_hash_or_by_the_status_url_a_client_got_and_redacts_the_answer(
      StoreEngine engine) throws Exception {
    Path file = file(engine);
    String statusUrl;
    try (ServerReceipts server = ServerReceipts.open(engine, file)) {
      server.send("k-done", context -> ServerAnswer.json(201, ANSWER));
      statusUrl = server.pending("k-pending", "charge ch_1").header("Location");
    }
    IntentId done = IntentId.of(SCOPE, OPERATION, "k-done");

    CliRun hidden = CliRun.of(LATER, "receipts", "show", done.safeKey().substring(0, 8),
        "--store", file.toString());
    CliRun revealed = CliRun.of(LATER, "receipts", "show", done.safeKey(), "--store",
        file.toString(), "--reveal");
    CliRun byUrl = CliRun.of(LATER, "receipts", "show", "--status-token", statusUrl, "--store",
        file.toString(), "--json");
    CliRun byToken = CliRun.of(LATER, "receipts", "show", "--status-token",
        statusUrl.substring(statusUrl.lastIndexOf('/') + 1), "--scope", SCOPE, "--operation",
        OPERATION, "--store", file.toString());

    assertThat(hidden.exitCode()).as(hidden.toString()).isZero();
    assertThat(hidden.out()).contains(done.safeKey(), "COMPLETED", "answer:          201",
        "Content-Type: <redacted>", "<redacted> (--reveal prints it)")
        .doesNotContain("ord_77", "k-done");
    assertThat(revealed.out()).contains(ANSWER, "key:             k-done");
    assertThat(byUrl.exitCode()).as(byUrl.toString()).isZero();
    JsonNode shown = JSON.readTree(byUrl.out());
    assertThat(shown.get("keyHash").asText())
        .isEqualTo(IntentId.of(SCOPE, OPERATION, "k-pending").safeKey());
    assertThat(shown.get("state").asText()).isEqualTo("PENDING");
    assertThat(shown.get("reference").asText()).isEqualTo("charge ch_1");
    assertThat(statusUrl).endsWith("/" + shown.get("statusToken").asText());
    assertThat(byToken.exitCode()).as(byToken.toString()).isZero();
    assertThat(byToken.out()).contains("PENDING", "charge ch_1");
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void resolve_with_an_answer_completes_a_pending_receipt_and_every_repeat_gets_it_replayed(
      StoreEngine engine) throws Exception {
    Path file = file(engine);
    try (ServerReceipts server = ServerReceipts.open(engine, file)) {
      server.pending("k-pending", "charge ch_1");
    }
    IntentId id = IntentId.of(SCOPE, OPERATION, "k-pending");

    CliRun run = CliRun.of(LATER, "receipts", "resolve", id.safeKey(), "--store",
        file.toString(), "--answer", "201", "--answer-body", answerFile(ANSWER).toString(),
        "--note", "provider shows charge ch_1 captured", "--author", "alice");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("PENDING -> COMPLETED with answer 201");
    AtomicInteger handlerRuns = new AtomicInteger();
    try (ServerReceipts server = ServerReceipts.open(engine, file)) {
      ServerAnswer repeat = server.send("k-pending", context -> {
        handlerRuns.incrementAndGet();
        return ServerAnswer.json(500, "{}");
      });
      assertThat(repeat.status()).isEqualTo(201);
      assertThat(new String(repeat.body(), StandardCharsets.UTF_8)).isEqualTo(ANSWER);
      assertThat(repeat.header("Idempotent-Replayed")).isEqualTo("true");
      assertThat(repeat.header("Content-Type")).isEqualTo("application/json");
      Receipt completed = server.receipt("k-pending");
      assertThat(completed.state()).isEqualTo(ReceiptState.COMPLETED);
      assertThat(completed.reason()).isEqualTo("answered 201 by operator alice");
      assertThat(completed.notes()).singleElement().satisfies(note -> {
        assertThat(note.author()).isEqualTo("alice");
        assertThat(note.text()).isEqualTo("answered 201: provider shows charge ch_1 captured");
        assertThat(note.at()).isEqualTo(LATER.instant());
      });
      assertThat(completed.expiresAt()).isEqualTo(LATER.instant().plus(Duration.ofDays(1)));
    }
    assertThat(handlerRuns).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void resolve_release_lets_the_next_repeat_run_the_handler_and_keeps_the_note(
      StoreEngine engine) throws Exception {
    Path file = file(engine);
    try (ServerReceipts server = ServerReceipts.open(engine, file)) {
      server.pending("k-pending", "charge ch_1");
    }

    CliRun run = CliRun.of(LATER, "receipts", "resolve", "--key", "k-pending", "--scope", SCOPE,
        "--operation", OPERATION, "--store", file.toString(), "--release", "--note",
        "provider has no charge ch_1", "--author", "bob");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("PENDING -> RELEASED; the next repeat runs the handler");
    AtomicInteger handlerRuns = new AtomicInteger();
    try (ServerReceipts server = ServerReceipts.open(engine, file)) {
      assertThat(server.receipt("k-pending").state()).isEqualTo(ReceiptState.RELEASED);
      ServerAnswer repeat = server.send("k-pending", context -> {
        handlerRuns.incrementAndGet();
        return ServerAnswer.json(201, ANSWER);
      });
      assertThat(repeat.status()).isEqualTo(201);
      assertThat(repeat.header("Idempotent-Replayed")).isNull();
      Receipt completed = server.receipt("k-pending");
      assertThat(completed.state()).isEqualTo(ReceiptState.COMPLETED);
      assertThat(completed.runs()).isEqualTo(2);
      assertThat(completed.notes()).extracting(IntentRecord.Note::text)
          .containsExactly("released: provider has no charge ch_1");
    }
    assertThat(handlerRuns).hasValue(1);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void resolve_refuses_processing_completed_and_released_receipts_and_writes_nothing(
      StoreEngine engine) throws Exception {
    Path file = everyState(engine);
    Path answer = answerFile(ANSWER);

    for (String key : List.of("k-running", "k-done", "k-failed")) {
      IntentRecord before = record(engine, file, key);
      CliRun run = CliRun.of(LATER, "receipts", "resolve",
          IntentId.of(SCOPE, OPERATION, key).safeKey(), "--store", file.toString(), "--answer",
          "201", "--answer-body", answer.toString(), "--note", "checked");

      assertThat(run.exitCode()).as(key + ": " + run).isEqualTo(OncelyCli.EXIT_REFUSED);
      assertThat(record(engine, file, key)).isEqualTo(before);
    }
    CliRun running = CliRun.of(LATER, "receipts", "resolve",
        IntentId.of(SCOPE, OPERATION, "k-running").safeKey(), "--store", file.toString(),
        "--release", "--note", "checked");
    CliRun done = CliRun.of(LATER, "receipts", "resolve",
        IntentId.of(SCOPE, OPERATION, "k-done").safeKey(), "--store", file.toString(),
        "--release", "--note", "checked");
    assertThat(running.err()).contains("is PROCESSING", "web-1", "Only a PENDING receipt");
    assertThat(done.err()).contains("already COMPLETED", "never rewritten");
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void release_is_refused_when_the_handler_recorded_its_effects_committed(StoreEngine engine)
      throws Exception {
    Path file = everyState(engine);
    IntentRecord before = record(engine, file, "k-committed");

    CliRun run = CliRun.of(LATER, "receipts", "resolve",
        IntentId.of(SCOPE, OPERATION, "k-committed").safeKey(), "--store", file.toString(),
        "--release", "--note", "looks stuck");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(run.err()).contains("effects are committed", "ord_9", "--answer");
    assertThat(record(engine, file, "k-committed")).isEqualTo(before);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void resolve_refuses_an_answer_the_server_would_not_store_or_a_body_that_is_not_one_json_document(
      StoreEngine engine) throws Exception {
    Path file = file(engine);
    try (ServerReceipts server = ServerReceipts.open(engine, file)) {
      server.pending("k-pending", "charge ch_1");
    }
    String hash = IntentId.of(SCOPE, OPERATION, "k-pending").safeKey();
    IntentRecord before = record(engine, file, "k-pending");

    CliRun serverError = CliRun.of(LATER, "receipts", "resolve", hash, "--store",
        file.toString(), "--answer", "503", "--answer-body", answerFile(ANSWER).toString(),
        "--note", "x");
    CliRun notJson = CliRun.of(LATER, "receipts", "resolve", hash, "--store", file.toString(),
        "--answer", "201", "--answer-body", answerFile("{\"id\":1} trailing").toString(),
        "--note", "x");
    CliRun both = CliRun.of(LATER, "receipts", "resolve", hash, "--store", file.toString(),
        "--answer", "201", "--answer-body", answerFile(ANSWER).toString(), "--release",
        "--note", "x");
    CliRun neither = CliRun.of(LATER, "receipts", "resolve", hash, "--store", file.toString(),
        "--note", "x");

    assertThat(serverError.exitCode()).as(serverError.toString()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(serverError.err()).contains("not an answer the server stores", "--release");
    assertThat(notJson.exitCode()).as(notJson.toString()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(notJson.err()).contains("not one JSON document");
    assertThat(both.exitCode()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(neither.exitCode()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(record(engine, file, "k-pending")).isEqualTo(before);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void intent_commands_refuse_receipts_and_point_to_the_receipt_commands(StoreEngine engine)
      throws Exception {
    Path file = file(engine);
    try (ServerReceipts server = ServerReceipts.open(engine, file)) {
      server.pending("k-pending", "charge ch_1");
    }
    String hash = IntentId.of(SCOPE, OPERATION, "k-pending").safeKey();
    IntentRecord before = record(engine, file, "k-pending");

    CliRun rejected = CliRun.of(LATER, "resolve", hash, "--store", file.toString(), "--as",
        "rejected", "--note", "no charge");
    CliRun retry = CliRun.of(LATER, "retry", hash, "--store", file.toString());
    CliRun list = CliRun.of(LATER, "list", "--store", file.toString());

    assertThat(rejected.exitCode()).as(rejected.toString()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(rejected.err()).contains("is a server receipt", "oncely receipts resolve",
        "run the handler again");
    assertThat(retry.exitCode()).as(retry.toString()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(retry.err()).contains("is a server receipt");
    assertThat(record(engine, file, "k-pending")).isEqualTo(before);
    assertThat(list.out()).contains("1 of them are server receipts", "oncely receipts list");
  }
}
