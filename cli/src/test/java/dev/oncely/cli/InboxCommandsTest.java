package dev.oncely.cli;

import static dev.oncely.cli.InboxMessages.INSTANCE;
import static dev.oncely.cli.InboxMessages.PAYLOAD;
import static dev.oncely.cli.InboxMessages.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.internal.InboxRecords;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code inbox list|show|replay} on real MapDB and SQLite files holding messages that the server
 * half's {@link Inbox} wrote, one in each state, and the intent and receipt commands' refusal of
 * inbox messages.
 */
class InboxCommandsTest {
  /** 42 minutes after the messages were written: every 30 s lease has run out. */
  private static final Clock LATER = Clock.fixed(T0.plus(Duration.ofMinutes(42)),
      ZoneOffset.UTC);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private Path file(StoreEngine engine) {
    return dir.resolve("inbox-" + engine + ".db");
  }

  private static String hash(String source, String messageId) {
    return InboxRecords.idOf(source, messageId).safeKey();
  }

  private static IntentRecord record(StoreEngine engine, Path file, String source,
      String messageId) {
    try (IntentStore store = engine.open(file)) {
      return store.get(InboxRecords.idOf(source, messageId)).orElseThrow();
    }
  }

  /**
   * One message in each state: a github delivery queued (no worker ran it), a stripe event
   * handled, one dead after its handler threw, one processing under a lease that ran out.
   */
  private Path everyState(StoreEngine engine) throws Exception {
    Path file = file(engine);
    InboxMessages inbox = InboxMessages.open(engine, file);
    inbox.accept("github", "d-queued", "push");
    inbox.handled("stripe", "evt_done");
    inbox.dead("stripe", "evt_dead");
    inbox.dieInHandler("stripe", "evt_running");
    return file;
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void list_shows_unfinished_messages_with_source_id_hash_type_state_failures_received_and_last_failure_type(
      StoreEngine engine) throws Exception {
    Path file = everyState(engine);

    CliRun run = CliRun.of(LATER, "inbox", "list", "--store", file.toString());

    assertThat(run.exitCode()).as(run.toString()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0)).contains("SOURCE", "ID HASH", "TYPE", "STATE", "FAILURES",
        "RECEIVED", "DUE", "LAST FAILURE");
    assertThat(row(lines, hash("github", "d-queued")))
        .contains("github", "push", "QUEUED", " 0 ", "42m00s ago", "now");
    assertThat(row(lines, hash("stripe", "evt_dead")))
        .contains("stripe", "DEAD", " 1 ", "42m00s ago", "java.lang.IllegalStateException");
    assertThat(row(lines, hash("stripe", "evt_running")))
        .contains("stripe", "PROCESSING", "lease ran out 41m30s ago");
    assertThat(run.out()).contains("3 unfinished inbox messages: 1 queued, 1 processing"
        + " (1 with a lease that ran out), 1 dead");
    assertThat(run.out()).doesNotContain(hash("stripe", "evt_done"), "evt_", "d-queued",
        "cus_secret", "ledger refused");
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void list_json_filters_by_state_and_source_and_refuses_to_list_handled_messages(
      StoreEngine engine) throws Exception {
    Path file = everyState(engine);

    CliRun dead = CliRun.of(LATER, "inbox", "list", "--store", file.toString(), "--json",
        "--state", "dead");
    CliRun github = CliRun.of(LATER, "inbox", "list", "--store", file.toString(), "--json",
        "--source", "github");
    CliRun handled = CliRun.of(LATER, "inbox", "list", "--store", file.toString(), "--state",
        "handled");

    assertThat(dead.exitCode()).as(dead.toString()).isZero();
    JsonNode array = JSON.readTree(dead.out());
    assertThat(array).hasSize(1);
    assertThat(array.get(0).get("idHash").asText()).isEqualTo(hash("stripe", "evt_dead"));
    assertThat(array.get(0).get("failures").asInt()).isEqualTo(1);
    assertThat(array.get(0).get("lastFailureType").asText())
        .isEqualTo("java.lang.IllegalStateException");
    assertThat(array.get(0).get("ageSeconds").asLong()).isEqualTo(42 * 60);
    assertThat(array.get(0).has("messageId")).isFalse();
    assertThat(JSON.readTree(github.out())).singleElement()
        .satisfies(m -> assertThat(m.get("type").asText()).isEqualTo("push"));
    assertThat(handled.exitCode()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(handled.err()).contains("handled messages are not listed");
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void show_gives_the_payload_as_length_and_fingerprint_unless_reveal_by_message_id_or_id_hash(
      StoreEngine engine) throws Exception {
    Path file = file(engine);
    InboxMessage stored;
    try (InboxMessages inbox = InboxMessages.open(engine, file)) {
      inbox.dead("stripe", "evt_dead");
      stored = inbox.get("stripe", "evt_dead");
    }

    CliRun hidden = CliRun.of(LATER, "inbox", "show", "--store", file.toString(), "stripe",
        "evt_dead");
    CliRun byHash = CliRun.of(LATER, "inbox", "show", "--store", file.toString(), "stripe",
        "--id-hash", hash("stripe", "evt_dead").substring(0, 8), "--json");
    CliRun revealed = CliRun.of(LATER, "inbox", "show", "--store", file.toString(), "stripe",
        "evt_dead", "--reveal");

    assertThat(hidden.exitCode()).as(hidden.toString()).isZero();
    assertThat(hidden.out()).contains(hash("stripe", "evt_dead"), "DEAD",
        "payload:         " + PAYLOAD.length() + " bytes <redacted> (--reveal prints it)",
        "fingerprint:     " + stored.fingerprint(),
        "last failure:    java.lang.IllegalStateException <redacted>",
        "message id:      <redacted>")
        .doesNotContain("cus_secret", "evt_dead", "ledger refused");
    assertThat(byHash.exitCode()).as(byHash.toString()).isZero();
    JsonNode shown = JSON.readTree(byHash.out());
    assertThat(shown.get("state").asText()).isEqualTo("DEAD");
    assertThat(shown.get("payload").get("bytes").asInt()).isEqualTo(PAYLOAD.length());
    assertThat(shown.get("payload").get("fingerprint").asText()).isEqualTo(stored.fingerprint());
    assertThat(shown.get("payload").has("text")).isFalse();
    assertThat(shown.has("messageId")).isFalse();
    assertThat(shown.has("lastFailure")).isFalse();
    assertThat(revealed.out()).contains(PAYLOAD, "message id:      evt_dead",
        "java.lang.IllegalStateException: ledger refused customer cus_secret_address");
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void replay_queues_a_dead_message_with_failures_reset_and_the_note_and_the_app_runs_it_once(
      StoreEngine engine) throws Exception {
    Path file = file(engine);
    try (InboxMessages inbox = InboxMessages.open(engine, file)) {
      inbox.dead("stripe", "evt_dead");
    }

    CliRun run = CliRun.of(LATER, "inbox", "replay", "--store", file.toString(), "stripe",
        "evt_dead", "--note", "ledger fixed, INC-231", "--author", "alice");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains(hash("stripe", "evt_dead"),
        "DEAD -> QUEUED, due now, failures reset (revision 2)");
    Map<String, Integer> runs = new ConcurrentHashMap<>();
    BlockingQueue<InboxEvent> events = new LinkedBlockingQueue<>();
    try (IntentStore store = engine.open(file);
        Inbox app = Inbox.builder(store).clock(LATER).instance("shop-web-2")
            .handler("stripe", m -> runs.merge(m.messageId(), 1, Integer::sum))
            .listener(events::add).build()) {
      InboxEvent handled = awaitEvent(events, InboxEvent.Kind.HANDLED);
      assertThat(handled.safeKey()).isEqualTo(hash("stripe", "evt_dead"));
      InboxMessage after = app.get("stripe", "evt_dead").orElseThrow();
      assertThat(after.state()).isEqualTo(InboxState.HANDLED);
      assertThat(after.notes()).singleElement().satisfies(note -> {
        assertThat(note.author()).isEqualTo("alice");
        assertThat(note.text()).isEqualTo("replayed: ledger fixed, INC-231");
        assertThat(note.at()).isEqualTo(LATER.instant());
      });
    }
    assertThat(runs).containsExactly(Map.entry("evt_dead", 1));
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void replay_refuses_handled_and_processing_messages_and_writes_nothing(StoreEngine engine)
      throws Exception {
    Path file = everyState(engine);
    IntentRecord done = record(engine, file, "stripe", "evt_done");
    IntentRecord running = record(engine, file, "stripe", "evt_running");

    CliRun handled = CliRun.of(LATER, "inbox", "replay", "--store", file.toString(), "stripe",
        "evt_done", "--note", "run it again");
    CliRun processing = CliRun.of(LATER, "inbox", "replay", "--store", file.toString(),
        "stripe", "--id-hash", hash("stripe", "evt_running"), "--note", "looks stuck");
    CliRun noNote = CliRun.of(LATER, "inbox", "replay", "--store", file.toString(), "stripe",
        "evt_dead");

    assertThat(handled.exitCode()).as(handled.toString()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(handled.err()).contains(hash("stripe", "evt_done"), "is HANDLED",
        "a handled message is never run again", "nothing was written");
    assertThat(processing.exitCode()).as(processing.toString())
        .isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(processing.err()).contains("is PROCESSING", INSTANCE,
        "a worker takes it over by itself");
    assertThat(noNote.exitCode()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(record(engine, file, "stripe", "evt_done")).isEqualTo(done);
    assertThat(record(engine, file, "stripe", "evt_running")).isEqualTo(running);
  }

  @ParameterizedTest
  @EnumSource(StoreEngine.class)
  void intent_and_receipt_commands_refuse_inbox_messages_and_inbox_commands_skip_intents(
      StoreEngine engine) throws Exception {
    Path file = file(engine);
    try (InboxMessages inbox = InboxMessages.open(engine, file)) {
      inbox.dead("stripe", "evt_dead");
    }
    IntentRecord intent = Records.record("k-intent", IntentState.PENDING, Duration.ofMinutes(5))
        .build();
    try (IntentStore store = engine.open(file)) {
      store.create(intent);
    }
    String dead = hash("stripe", "evt_dead");
    IntentRecord before = record(engine, file, "stripe", "evt_dead");

    CliRun resolve = CliRun.of(LATER, "resolve", "--key", "evt_dead", "--scope", "stripe",
        "--operation", "inbox", "--store", file.toString(), "--as", "rejected", "--note", "x");
    CliRun retry = CliRun.of(LATER, "retry", dead, "--store", file.toString());
    CliRun show = CliRun.of(LATER, "show", dead, "--store", file.toString());
    CliRun list = CliRun.of(LATER, "list", "--store", file.toString());
    CliRun receipts = CliRun.of(LATER, "receipts", "list", "--store", file.toString());
    CliRun receipt = CliRun.of(LATER, "receipts", "show", "--key", "evt_dead", "--scope",
        "stripe", "--operation", "inbox", "--store", file.toString());
    CliRun inboxList = CliRun.of(LATER, "inbox", "list", "--store", file.toString());
    CliRun inboxShow = CliRun.of(LATER, "inbox", "show", "--store", file.toString(),
        intent.id().scope(), "--id-hash", intent.id().safeKey());

    assertThat(resolve.exitCode()).as(resolve.toString()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(resolve.err()).contains("is an inbox message", "oncely inbox replay",
        "without its handler ever running");
    assertThat(retry.exitCode()).as(retry.toString()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(retry.err()).contains("is an inbox message");
    assertThat(show.exitCode()).as(show.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(show.err()).contains("is an inbox message", "oncely inbox show");
    assertThat(record(engine, file, "stripe", "evt_dead")).isEqualTo(before);
    assertThat(list.out()).contains(intent.id().safeKey(), "1 unfinished, 0 need reconciliation",
        "1 unfinished inbox messages, not listed here: `oncely inbox list`")
        .doesNotContain(dead);
    assertThat(receipts.out()).contains("1 unfinished inbox messages: `oncely inbox list`");
    assertThat(receipt.exitCode()).as(receipt.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(receipt.err()).contains("is an inbox message", "not a server receipt");
    assertThat(inboxList.out()).contains(dead, "1 unfinished intents or receipts")
        .doesNotContain(intent.id().safeKey());
    assertThat(inboxShow.exitCode()).as(inboxShow.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(inboxShow.err()).contains("no message matches");
  }

  private static String row(List<String> lines, String hash) {
    return lines.stream().filter(l -> l.contains(hash)).findFirst()
        .orElseThrow(() -> new AssertionError("no row of " + hash + " in " + lines));
  }

  private static InboxEvent awaitEvent(BlockingQueue<InboxEvent> events, InboxEvent.Kind kind)
      throws InterruptedException {
    while (true) {
      InboxEvent e = events.poll(30, TimeUnit.SECONDS);
      if (e == null) {
        throw new AssertionError("no " + kind + " event within 30 s");
      }
      if (e.kind() == kind) {
        return e;
      }
    }
  }
}
