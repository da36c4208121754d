package dev.oncely.cli;

import static dev.oncely.cli.Records.BODY;
import static dev.oncely.cli.Records.NOW;
import static dev.oncely.cli.Records.record;
import static dev.oncely.cli.Records.response;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.persistence.StoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** list, show, resolve and retry on real MapDB and SQLite files. */
class StoreCommandsTest {
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private Path store(StoreEngine engine, StoreOptions options, Consumer<IntentStore> fill) {
    Path file = dir.resolve(engine + ".db");
    try (IntentStore store = engine.open(file, options)) {
      fill.accept(store);
    }
    return file;
  }

  private Path store(StoreEngine engine, IntentRecord... records) {
    return store(engine, StoreOptions.defaults(), s -> List.of(records).forEach(s::create));
  }

  private static IntentRecord reread(StoreEngine engine, Path file, IntentId id) {
    try (IntentStore store = engine.open(file)) {
      return store.get(id).orElseThrow();
    }
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void list_shows_unfinished_records_oldest_first_with_age_state_reason_hash_and_business_id(
      StoreEngine engine) {
    IntentRecord pending = record("key-pending", IntentState.PENDING, Duration.ofMinutes(42))
        .reason("TIMEOUT_AFTER_SEND: no answer within 10s").build();
    IntentRecord doubtful = record("key-doubt", IntentState.NEEDS_RECONCILIATION,
        Duration.ofHours(30)).reason("older than the server's key retention").build();
    IntentRecord done = record("key-done", IntentState.COMPLETED, Duration.ofMinutes(5))
        .lastResponse(response(201, "{}")).build();
    Path file = store(engine, pending, doubtful, done);

    CliRun run = CliRun.of(CLOCK, "list", "--store", file.toString());

    assertThat(run.exitCode()).as(run.toString()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).contains("KEY HASH", "STATE", "AGE", "BUSINESS ID", "REASON");
    assertThat(lines.get(1)).contains(doubtful.id().safeKey(), "NEEDS_RECONCILIATION", "1d06h",
        "order-key-doubt", "older than the server's key retention");
    assertThat(lines.get(2)).contains(pending.id().safeKey(), "PENDING", "42m00s",
        "order-key-pending", "TIMEOUT_AFTER_SEND");
    assertThat(run.out()).doesNotContain("key-done", done.id().safeKey())
        .doesNotContain("key-pending\b").contains("2 unfinished, 1 need reconciliation");
    assertThat(run.out() + run.err()).doesNotContain("4242-secret");
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void list_json_filters_by_state_and_says_when_key_retention_ended(StoreEngine engine)
      throws Exception {
    Path file = store(engine,
        record("a", IntentState.PENDING, Duration.ofMinutes(1)).build(),
        record("b", IntentState.NEEDS_RECONCILIATION, Duration.ofHours(25)).build());

    CliRun run = CliRun.of(CLOCK, "list", "--store", file.toString(), "--json",
        "--state", "needs_reconciliation");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode array = JSON.readTree(run.out());
    assertThat(array).hasSize(1);
    assertThat(array.get(0).get("state").asText()).isEqualTo("NEEDS_RECONCILIATION");
    assertThat(array.get(0).get("businessId").asText()).isEqualTo("order-b");
    assertThat(array.get(0).get("ageSeconds").asLong()).isEqualTo(25 * 3600);
    assertThat(array.get(0).get("pastKeyRetention").asBoolean()).isTrue();
    assertThat(array.get(0).has("key")).isFalse();
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void show_redacts_key_headers_and_bodies_unless_reveal(StoreEngine engine) {
    IntentRecord r = record("the-secret-key", IntentState.PENDING, Duration.ofMinutes(3))
        .businessId("order-77").lastResponse(response(503, "{\"error\":\"busy-secret\"}")).build();
    Path file = store(engine, r);

    CliRun hidden = CliRun.of(CLOCK, "show", r.id().safeKey(), "--store", file.toString());
    CliRun shown = CliRun.of(CLOCK, "show", r.id().safeKey().substring(0, 8), "--store",
        file.toString(), "--reveal");

    assertThat(hidden.exitCode()).as(hidden.toString()).isZero();
    assertThat(hidden.out()).contains(r.id().safeKey(), "PENDING", "X-Trace-Note: <redacted>",
        BODY.length() + " bytes, application/json <redacted>", "last response:   503")
        .doesNotContain("the-secret-key", "trace-secret-value", "4242-secret", "busy-secret");
    assertThat(shown.exitCode()).as(shown.toString()).isZero();
    assertThat(shown.out()).contains("the-secret-key", "trace-secret-value", BODY, "busy-secret");
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void show_decrypts_an_encrypted_store_with_the_key_from_a_file_or_the_environment(
      StoreEngine engine) throws Exception {
    byte[] key = new byte[32];
    key[0] = 7;
    IntentRecord r = record("enc-key", IntentState.PENDING, Duration.ofMinutes(3)).build();
    Path file = store(engine, StoreOptions.builder().encryption(StoreEncryption.aes256Gcm(key))
        .build(), s -> s.create(r));
    Path keyFile = Files.write(dir.resolve("store.key"), key);
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r--r--"));
    CliRun readableByOthers = CliRun.of(CLOCK, "show", "--business-id", "order-enc-key",
        "--store", file.toString(), "--key-file", keyFile.toString());
    Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
    String hex = HexFormat.of().formatHex(key);

    CliRun fromFile = CliRun.of(CLOCK, "show", "--business-id", "order-enc-key", "--store",
        file.toString(), "--key-file", keyFile.toString(), "--reveal");
    CliRun fromEnv = CliRun.of(CLOCK, Map.of("ONCELY_STORE_KEY", hex), "show", "--business-id",
        "order-enc-key", "--store", file.toString(), "--key-env", "ONCELY_STORE_KEY", "--reveal");
    byte[] wrong = key.clone();
    wrong[0] = 8;
    CliRun wrongKey = CliRun.of(CLOCK, Map.of("K", HexFormat.of().formatHex(wrong)), "list",
        "--store", file.toString(), "--key-env", "K");

    assertThat(readableByOthers.exitCode()).as(readableByOthers.toString())
        .isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(readableByOthers.err()).contains("chmod 600").doesNotContain(hex);
    assertThat(fromFile.exitCode()).as(fromFile.toString()).isZero();
    assertThat(fromFile.out()).contains(BODY, "enc-key");
    assertThat(fromEnv.exitCode()).as(fromEnv.toString()).isZero();
    assertThat(fromEnv.out()).contains(BODY);
    assertThat(wrongKey.exitCode()).as(wrongKey.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(wrongKey.err()).contains("--key-file or --key-env").doesNotContain(hex);
    assertThat(reread(engine, file, r.id(), key)).isEqualTo(r);
  }

  private static IntentRecord reread(StoreEngine engine, Path file, IntentId id, byte[] key) {
    try (IntentStore store = engine.open(file,
        StoreOptions.builder().encryption(StoreEncryption.aes256Gcm(key)).build())) {
      return store.get(id).orElseThrow();
    }
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void resolve_writes_one_compare_and_set_the_app_reads_as_its_outcome(StoreEngine engine) {
    IntentRecord r = record("k-resolve", IntentState.NEEDS_RECONCILIATION, Duration.ofHours(30))
        .lastResponse(response(500, "{}")).reason("replayed server error").build();
    Path file = store(engine, r);

    CliRun run = CliRun.of(CLOCK, "resolve", r.id().safeKey(), "--store", file.toString(),
        "--as", "completed", "--note", "payment pay_123 found in the PSP dashboard",
        "--author", "alice");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("NEEDS_RECONCILIATION -> COMPLETED", "revision 1");
    IntentRecord after = reread(engine, file, r.id());
    assertThat(after.revision()).isEqualTo(r.revision() + 1);
    assertThat(after.state()).isEqualTo(IntentState.COMPLETED);
    assertThat(after.lastResponse().status()).isEqualTo(200);
    assertThat(after.lastResponse().header("Oncely-Operator-Resolution")).isEqualTo("completed");
    assertThat(after.reason()).contains("alice");
    assertThat(after.notes()).containsExactly(new IntentRecord.Note(NOW, "alice",
        "resolved as COMPLETED: payment pay_123 found in the PSP dashboard"));
    assertThat(after.body()).isEqualTo(r.body());
    assertThat(after.createdAt()).isEqualTo(r.createdAt());
    assertThat(after.expiresAt()).isEqualTo(NOW.plus(Duration.ofDays(7)));
    try (IntentStore store = engine.open(file);
        IdempotentClient app = IdempotentClient.builder().store(store).build()) {
      assertThat(app.outcomeOf(r.id())).get().isInstanceOf(IntentOutcome.Completed.class);
    }
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void notes_are_appended_after_earlier_ones_and_shown_as_the_audit_trail(StoreEngine engine) {
    IntentRecord.Note earlier = new IntentRecord.Note(NOW.minusSeconds(600), "bob",
        "marked due now: first look");
    IntentRecord r = record("k-trail", IntentState.PENDING, Duration.ofMinutes(30))
        .notes(List.of(earlier)).build();
    Path file = store(engine, r);

    CliRun resolve = CliRun.of(CLOCK, "resolve", r.id().safeKey(), "--store", file.toString(),
        "--as", "rejected", "--note", "customer cancelled", "--author", "carol");
    CliRun show = CliRun.of(CLOCK, "show", "--business-id", "order-k-trail", "--scope",
        "tenant-7", "--operation", "create-payment", "--store", file.toString());

    assertThat(resolve.exitCode()).as(resolve.toString()).isZero();
    assertThat(reread(engine, file, r.id()).notes()).containsExactly(earlier,
        new IntentRecord.Note(NOW, "carol", "resolved as REJECTED: customer cancelled"));
    assertThat(show.exitCode()).as(show.toString()).isZero();
    assertThat(show.out()).contains("state:           REJECTED", "audit trail:     2 notes",
        "bob: marked due now: first look", "carol: resolved as REJECTED: customer cancelled");
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void resolve_keeps_a_last_response_that_fits_the_verdict(StoreEngine engine) {
    IntentRecord r = record("k-422", IntentState.PENDING, Duration.ofMinutes(30))
        .lastResponse(response(422, "{\"error\":\"card declined\"}")).build();
    Path file = store(engine, r);

    CliRun run = CliRun.of(CLOCK, "resolve", "--business-id", "order-k-422", "--store",
        file.toString(), "--as", "rejected", "--note", "declined, customer told");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    IntentRecord after = reread(engine, file, r.id());
    assertThat(after.state()).isEqualTo(IntentState.REJECTED);
    assertThat(after.lastResponse()).isEqualTo(r.lastResponse());
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void resolve_never_rewrites_a_finished_record(StoreEngine engine) {
    IntentRecord done = record("k-done", IntentState.COMPLETED, Duration.ofMinutes(5))
        .lastResponse(response(201, "{}")).build();
    Path file = store(engine, done);

    CliRun run = CliRun.of(CLOCK, "resolve", "--key", "k-done", "--scope", "tenant-7",
        "--operation", "create-payment", "--store", file.toString(), "--as", "rejected",
        "--note", "oops");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(run.err()).contains("already COMPLETED", "never rewritten");
    assertThat(reread(engine, file, done.id())).isEqualTo(done);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void a_record_that_was_never_sent_cannot_be_resolved_as_completed(StoreEngine engine) {
    IntentRecord unsent = record("k-new", IntentState.NEW, Duration.ofMinutes(5)).build();
    Path file = store(engine, unsent);

    CliRun completed = CliRun.of(CLOCK, "resolve", unsent.id().safeKey(), "--store",
        file.toString(), "--as", "completed", "--note", "sure?");
    assertThat(completed.exitCode()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(completed.err()).contains("never sent");
    assertThat(reread(engine, file, unsent.id())).isEqualTo(unsent);

    CliRun cancelled = CliRun.of(CLOCK, "resolve", unsent.id().safeKey(), "--store",
        file.toString(), "--as", "rejected", "--note", "order cancelled before sending");
    assertThat(cancelled.exitCode()).as(cancelled.toString()).isZero();
    assertThat(reread(engine, file, unsent.id()).state()).isEqualTo(IntentState.REJECTED);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void retry_marks_a_pending_record_due_now_and_changes_nothing_else(StoreEngine engine) {
    IntentRecord r = record("k-retry", IntentState.PENDING, Duration.ofMinutes(10))
        .nextAttemptAt(NOW.plus(Duration.ofMinutes(20))).reason("ATTEMPTS_EXHAUSTED: 5").build();
    Path file = store(engine, r);

    CliRun run = CliRun.of(CLOCK, "retry", r.id().safeKey(), "--store", file.toString(),
        "--json");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("\"nextAttemptAt\" : \"" + NOW + "\"",
        "\"text\" : \"marked due now: retry requested\"");
    IntentRecord after = reread(engine, file, r.id());
    assertThat(after.nextAttemptAt()).isEqualTo(NOW);
    assertThat(after.state()).isEqualTo(IntentState.PENDING);
    assertThat(after.revision()).isEqualTo(1);
    assertThat(after.notes()).singleElement().satisfies(note -> {
      assertThat(note.at()).isEqualTo(NOW);
      assertThat(note.text()).isEqualTo("marked due now: retry requested");
    });
    assertThat(after.successor().revision(0).nextAttemptAt(r.nextAttemptAt())
        .updatedAt(r.updatedAt()).notes(List.of()).build()).isEqualTo(r);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void retry_is_refused_past_key_retention_and_for_records_in_doubt(StoreEngine engine) {
    IntentRecord old = record("k-old", IntentState.PENDING, Duration.ofHours(25)).build();
    IntentRecord doubt = record("k-doubt", IntentState.NEEDS_RECONCILIATION,
        Duration.ofMinutes(5)).build();
    Path file = store(engine, old, doubt);

    CliRun pastRetention = CliRun.of(CLOCK, "retry", old.id().safeKey(), "--store",
        file.toString());
    CliRun inDoubt = CliRun.of(CLOCK, "retry", doubt.id().safeKey(), "--store", file.toString());

    assertThat(pastRetention.exitCode()).as(pastRetention.toString())
        .isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(pastRetention.err()).contains("key retention", "second effect", "resolve");
    assertThat(inDoubt.exitCode()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(inDoubt.err()).contains("needs reconciliation");
    assertThat(reread(engine, file, old.id())).isEqualTo(old);
    assertThat(reread(engine, file, doubt.id())).isEqualTo(doubt);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void an_ambiguous_or_unknown_reference_is_refused_naming_the_candidates(StoreEngine engine) {
    Path file = store(engine, record("x1", IntentState.PENDING, Duration.ofMinutes(1)).build(),
        record("x2", IntentState.PENDING, Duration.ofMinutes(1)).businessId("same").build(),
        record("x3", IntentState.PENDING, Duration.ofMinutes(1)).businessId("same")
            .id(IntentId.of("tenant-8", "create-payment", "x3")).build());

    CliRun ambiguous = CliRun.of(CLOCK, "show", "--business-id", "same", "--store",
        file.toString());
    CliRun unknown = CliRun.of(CLOCK, "show", "k#ffffffff", "--store", file.toString());
    CliRun malformed = CliRun.of(CLOCK, "show", "k#zz", "--store", file.toString());

    assertThat(ambiguous.exitCode()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(ambiguous.err()).contains("matches 2 records", "tenant-7", "tenant-8");
    assertThat(unknown.exitCode()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(malformed.exitCode()).isEqualTo(OncelyCli.EXIT_USAGE);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void a_missing_store_is_reported_and_never_created(StoreEngine engine) {
    Path file = dir.resolve("typo-" + engine + ".db");

    CliRun run = CliRun.of(CLOCK, "list", "--store", file.toString(), "--engine",
        engine.toString());

    assertThat(run.exitCode()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(run.err()).contains("no store file at", file.toString());
    assertThat(file).doesNotExist();
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void show_json_carries_every_field_and_the_audit_trail_without_secrets(StoreEngine engine)
      throws Exception {
    IntentRecord r = record("k-json", IntentState.PENDING, Duration.ofMinutes(3))
        .keyWireForm("Idempotency-Key", "\"k-json\"")
        .traceContext(Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        .notes(List.of(new IntentRecord.Note(NOW, "dave", "looked at it")))
        .build();
    Path file = store(engine, r);

    CliRun run = CliRun.of(CLOCK, "show", r.id().safeKey(), "--store", file.toString(), "--json");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode json = JSON.readTree(run.out());
    assertThat(json.get("keyHash").asText()).isEqualTo(r.id().safeKey());
    assertThat(json.get("keyHeader").asText()).isEqualTo("Idempotency-Key");
    assertThat(json.has("keyValue")).isFalse();
    assertThat(json.get("body").get("bytes").asInt()).isEqualTo(BODY.length());
    assertThat(json.get("body").has("text")).isFalse();
    assertThat(json.get("headers").get("X-Trace-Note").get(0).asText()).isEqualTo("<redacted>");
    assertThat(json.get("auditTrail").get(0).get("author").asText()).isEqualTo("dave");
    assertThat(json.get("traceContext").get("traceparent").asText()).startsWith("00-4bf92f35");
    assertThat(run.out()).doesNotContain("k-json\\\"", "4242-secret", "trace-secret-value");
  }

  @org.junit.jupiter.api.Test
  void the_default_finished_retention_of_a_resolved_record_is_the_clients() {
    assertThat(Duration.parse(dev.oncely.cli.internal.ResolveCommand.DEFAULT_FINISHED_RETENTION))
        .isEqualTo(IdempotentClient.DEFAULT_FINISHED_RETENTION);
  }
}
