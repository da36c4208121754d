package dev.oncely.examples.webhookkill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.oncely.client.IntentStore;
import dev.oncely.examples.webhookkill.WebhookPlan.Event;
import dev.oncely.examples.webhookkill.WebhookPlan.Kind;
import dev.oncely.examples.webhookkill.WebhookSender.Answer;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.postgres.ExamplesPostgres;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhook receivers SIGKILLed at random points while a sender delivers: every good event's credit
 * exists exactly once, nothing forged or stale is stored or credited, every refused delivery was
 * answered {@code 400}/{@code 401}, and no good event is lost.
 *
 * <p>The receivers are {@link WebhookReceiverChild} JVMs (embedded Tomcat, the server half's
 * {@code WebhookServlet} with three sources: Standard Webhooks, Stripe and GitHub; an {@code
 * Inbox}; a handler crediting a {@link CreditLedger} under a unique constraint on (source, event
 * id)), restarted on the same files after every kill. The sender ({@link WebhookSender}, plan in
 * {@link WebhookPlan}) delivers the good events, a third per source, with 30% duplicates (20%
 * shuffled among the originals, 10% sent after the original's {@code 2xx}), in random order, plus
 * forged and stale deliveries, retrying what got no answer or a {@code 5xx} as a provider does.
 *
 * <p>The plan goes out in {@code kills + 1} waves. Inside each wave but the last, once between a
 * quarter and three quarters of it is answered, one receiver (at random) is SIGKILLed: at once;
 * after its next 1 to 3 lines of a random step ({@code ACCEPTED}: stored, the {@code 200} maybe
 * not yet written; {@code STARTED}; {@code RAN}; {@code EFFECT}; {@code HANDLED}); or at a hold
 * point, a worker parked right after the handler counted its run or wrote its credit, where the
 * inbox knows the run started and not that it ended. The victim is restarted on its files before
 * the next wave goes, so every kill lands while deliveries are in flight and handlers run. The
 * first kill is always held after a credit, so at least one event is run again.
 *
 * <p>{@link #a_mapdb_receiver_killed_at_random_points_credits_every_good_event_once}: one receiver,
 * the inbox on MapDB, the ledger in SQLite, the handler at least once and deduplicated: the inbox
 * records a run's end after the handler returns, so a kill between the credit's commit and that
 * record runs the handler again, and the unique constraint absorbs it ({@code runs >= effects}).
 * {@link #two_postgres_receivers_killed_at_random_points_credit_every_good_event_once}: two
 * receivers sharing one PostgreSQL inbox (a schema of its own) and one PostgreSQL ledger, the
 * sender spreading deliveries over both, kills on either, the handler exactly once through {@code
 * PostgresInbox}: the credit commits with the message's completion, so a killed run leaves
 * neither and each event's credit transaction commits once ({@code runs == effects}, a plain
 * insert that a second commit would fail). Both count every started run on its own and print how
 * many events were started more than once.
 *
 * <p>Once every delivery is answered, the test waits on the receivers' output lines until {@code
 * GET /stats} shows every event credited and nothing unfinished, stops the receivers cleanly and
 * checks the files: the answers, every good event handled in the inbox with its own bytes, nothing
 * stored for a refused id, one credit per good event with its signed amount, the balances.
 *
 * <p>{@code -Doncely.webhooks.kill.events=N} sets the good events (default {@value
 * #DEFAULT_EVENTS}), {@code -Doncely.webhooks.kill.kills=K} the kills (default {@value
 * #DEFAULT_KILLS}); the long run is {@code events=10000, kills=20}. {@code
 * -Doncely.webhooks.kill.seed=S} replays a plan and its kill points.
 */
class WebhookReceiverKillTest {
  private static final int DEFAULT_EVENTS = 600;
  private static final int DEFAULT_KILLS = 3;
  private static final int EVENTS = Integer.getInteger("oncely.webhooks.kill.events",
      DEFAULT_EVENTS);
  private static final int KILLS = Integer.getInteger("oncely.webhooks.kill.kills", DEFAULT_KILLS);
  private static final long SEED = Long.getLong("oncely.webhooks.kill.seed", 20260605L);
  /** Deliveries in flight at once. */
  private static final int CONCURRENCY = 8;
  /** How long sending and then draining may take, each. */
  private static final Duration PATIENCE = Duration.ofSeconds(120 + EVENTS / 10);
  private static final List<String> STEPS = List.of("STEP ACCEPTED", "STEP STARTED",
      "STEP RAN", "STEP EFFECT", "STEP HANDLED");

  @TempDir Path dir;

  @Test
  void a_mapdb_receiver_killed_at_random_points_credits_every_good_event_once() throws Exception {
    WebhookPlan plan = new WebhookPlan(EVENTS, SEED);
    Path inboxFile = dir.resolve("inbox.db");
    Path ledgerFile = dir.resolve("ledger.db");
    Run run;
    try (ReceiverFleet fleet = new ReceiverFleet(dir, 1, plan.secrets(), i -> List.of(
        "--engine", "mapdb", "--instance", "r" + i, "--inbox", inboxFile.toString(),
        "--ledger", ledgerFile.toString()))) {
      run = runUnderKills(fleet, plan);
      fleet.stopAll();
    }
    try (MapDbIntentStore store = MapDbIntentStore.open(inboxFile);
        CreditLedger ledger = CreditLedger.sqlite(ledgerFile)) {
      verify(plan, run, store, ledger, false,
          "MapDB inbox + SQLite ledger, one receiver, at-least-once handler");
    }
  }

  @Test
  void two_postgres_receivers_killed_at_random_points_credit_every_good_event_once()
      throws Exception {
    WebhookPlan plan = new WebhookPlan(EVENTS, SEED + 1);
    String url = ExamplesPostgres.newDatabase();
    try (HikariDataSource admin = ExamplesPostgres.pool(url, 4);
        CreditLedger ledger = CreditLedger.postgres(admin)) {
      PostgresIntentStore.migrate(admin, WebhookReceiverChild.INBOX_SCHEMA);
      Run run;
      try (ReceiverFleet fleet = new ReceiverFleet(dir, 2, plan.secrets(), i -> List.of(
          "--engine", "postgres", "--instance", "r" + i, "--jdbc", url))) {
        run = runUnderKills(fleet, plan);
        fleet.stopAll();
      }
      try (PostgresIntentStore store = PostgresIntentStore.builder(admin)
          .schema(WebhookReceiverChild.INBOX_SCHEMA).build()) {
        verify(plan, run, store, ledger, true,
            "PostgreSQL inbox + ledger, two receivers, PostgresInbox handler");
      }
      Map<String, Long> byInstance = ledger.credits().values()
          .stream().collect(Collectors.groupingBy(CreditLedger.Credit::instance, TreeMap::new,
              Collectors.counting()));
      System.out.println("  credits by receiver instance: " + byInstance);
      assertThat(byInstance).as("both receivers handled events").hasSize(2);
    }
  }

  /** What happened while the sender delivered. */
  private record Run(List<String> kills, List<Answer> answers, Map<String, Long> sender,
      Map<String, Long> steps, Map<String, Long> millis, int starts) {}

  /**
   * Starts the fleet, sends the plan in {@link #KILLS} + 1 waves with one kill inside each wave
   * but the last (the victim restarted on its files before the next wave goes), then waits until
   * every good event is credited and nothing in the inbox is unfinished. Returns the kill points,
   * the answers, the sender's and the receivers' counts, and how long the phases took (from the
   * start: the fleet up, every delivery answered, drained; and the restarts' total).
   */
  private Run runUnderKills(ReceiverFleet fleet, WebhookPlan plan) throws Exception {
    Map<String, Long> millis = new LinkedHashMap<>();
    long started = System.nanoTime();
    Random random = new Random(SEED ^ fleet.size());
    fleet.startAll();
    millis.put("start", (System.nanoTime() - started) / 1_000_000);
    try (WebhookSender sender = new WebhookSender(fleet, plan, CONCURRENCY)) {
      int wave = (plan.planned().size() + KILLS) / (KILLS + 1);
      CompletableFuture<Void> sent = sender.start(wave);
      List<String> kills = new ArrayList<>();
      for (int k = 0; k < KILLS; k++) {
        // A random moment in the middle half of this wave: some of it answered, some in flight.
        int at = k * wave + wave / 4 + random.nextInt(Math.max(1, wave / 2));
        sender.awaitAnswers(at, PATIENCE);
        int victim = random.nextInt(fleet.size());
        kills.add("r" + victim + " " + killPoint(fleet.process(victim), sender, random, k));
        fleet.killAndRestart(victim);
        sender.release((k + 2) * wave);
      }
      sender.release(plan.planned().size());
      try {
        sent.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        throw new AssertionError("the sender did not finish within " + PATIENCE + ": "
            + sender.counts() + fleet.stderrTexts(), e);
      } catch (ExecutionException e) {
        throw new AssertionError("the sender failed" + fleet.stderrTexts(), e.getCause());
      }
      millis.put("sent", (System.nanoTime() - started) / 1_000_000);
      awaitDrained(fleet, plan.good().size());
      millis.put("drained", (System.nanoTime() - started) / 1_000_000);
      millis.put("restarts", fleet.restartMillis());
      return new Run(kills, sender.answers(), sender.counts(), fleet.progress().steps(), millis,
          fleet.starts());
    }
  }

  /**
   * Waits for the point where {@code victim} is to be killed and says which it was: at once; after
   * the next 1 to 3 lines of a random step; or parked at a hold point right after the handler
   * counted its run or committed its credit (always the latter for the first kill). A point the
   * victim does not reach before the sender has nothing left to send in this wave becomes "idle".
   */
  private static String killPoint(ReceiverProcess victim, WebhookSender sender, Random random,
      int k) throws Exception {
    int n = 1 + random.nextInt(3);
    int choice = k == 0 ? 0 : random.nextInt(4);
    if (choice == 3) {
      return "at once";
    }
    victim.forgetLines();
    sender.whenIdle(victim::wake);
    if (choice == 2) {
      String step = STEPS.get(random.nextInt(STEPS.size()));
      for (int i = 0; i < n; i++) {
        if (victim.awaitLine(step::equals) == null) {
          return "idle (waiting for " + step + ")";
        }
      }
      return "after " + n + "x " + step;
    }
    String step = choice == 0 ? "EFFECT" : "RAN";
    victim.send("HOLD " + step + " " + n);
    if (victim.awaitLine(("HELD " + step)::equals) == null) {
      victim.send("HOLD NONE 0");
      return "idle (waiting for HELD " + step + ")";
    }
    return "held at " + step;
  }

  /**
   * Waits, on the receivers' output lines, until the ledger holds {@code events} credits and the
   * inbox nothing unfinished; fails at once on a dead-lettered event, or after {@link #PATIENCE}.
   */
  private static void awaitDrained(ReceiverFleet fleet, int events) throws Exception {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (true) {
      long seen = fleet.progress().ticks();
      JsonNode stats = fleet.stats();
      assertThat(stats.get("dead").asLong()).as("dead-lettered events: %s", stats).isZero();
      if (stats.get("effects").asLong() >= events && stats.get("unfinished").asLong() == 0) {
        return;
      }
      if (!fleet.progress().awaitTickAfter(seen, deadline)) {
        throw new AssertionError("not drained within " + PATIENCE + ": " + stats
            + fleet.stderrTexts());
      }
    }
  }

  /**
   * Checks the answers, the inbox and the ledger once no receiver runs. {@code exactlyOnce}: the
   * handler's credit commits with the message's completion, so each event's credit transaction
   * committed once; otherwise at least once, a repeat absorbed by the constraint.
   */
  private static void verify(WebhookPlan plan, Run run, IntentStore store, CreditLedger ledger,
      boolean exactlyOnce, String setting) throws Exception {
    // What the sender was answered: every good delivery 200, every forged or stale one refused,
    // and each event stored by one delivery at most ("accepted"), the others "duplicate".
    Map<Kind, Integer> perKind = new EnumMap<>(Kind.class);
    Map<String, Integer> acceptedPerEvent = new HashMap<>();
    long afterRetries = 0;
    for (Answer a : run.answers()) {
      Kind kind = a.delivery().kind();
      perKind.merge(kind, 1, Integer::sum);
      assertThat(a.status()).as("%s delivery answered %s", kind, a.text())
          .isEqualTo(kind.expected);
      if (kind.good() && a.text().equals("accepted")) {
        acceptedPerEvent.merge(keyOf(a.delivery().event()), 1, Integer::sum);
      }
      afterRetries += a.attempts() > 1 ? 1 : 0;
    }
    assertThat(run.answers()).hasSize(plan.planned().size() + plan.redeliveries());
    assertThat(acceptedPerEvent.values()).as("deliveries answered 'accepted' per event")
        .allSatisfy(n -> assertThat(n).isEqualTo(1));
    // Events no delivery was answered "accepted" for: stored by an attempt whose answer a kill
    // cut off, then found stored by the sender's retry or another delivery.
    long answerLost = plan.good().size() - acceptedPerEvent.size();

    // The inbox: every good event handled, with its own bytes (no forged body replaced them);
    // nothing stored for an id that was only ever forged or stale.
    Inbox reader = Inbox.builder(store).workers(0).build();
    try {
      for (Event e : plan.good()) {
        InboxMessage m = reader.get(e.source(), e.id()).orElseThrow(
            () -> new AssertionError("a good event of " + e.source() + " was lost"));
        assertThat(m.state()).as("%s", m).isEqualTo(InboxState.HANDLED);
        assertThat(m.payload()).as("%s", m).isEqualTo(e.body());
      }
      for (Event e : plan.neverGood()) {
        assertThat(reader.get(e.source(), e.id())).as("a refused delivery was stored")
            .isEmpty();
      }
      assertThat(reader.listUnfinished()).isEmpty();
    } finally {
      reader.close();
    }

    // The ledger: one credit per good event with its own amount, none for anything else; the
    // balances are the sums of the good events; every event ran at least once.
    Map<String, CreditLedger.Credit> credits = ledger.credits();
    Map<String, Event> good = plan.good().stream()
        .collect(Collectors.toMap(WebhookReceiverKillTest::keyOf, e -> e));
    assertThat(credits.keySet()).as("events credited").isEqualTo(good.keySet());
    Map<String, Long> expectedBalances = new TreeMap<>();
    for (Event e : plan.good()) {
      CreditLedger.Credit c = credits.get(keyOf(e));
      assertThat(c.customer()).isEqualTo(e.customer());
      assertThat(c.amount()).as("the credit's amount is the signed one").isEqualTo(e.amount());
      expectedBalances.merge(e.customer(), e.amount(), Long::sum);
    }
    assertThat(ledger.balances()).isEqualTo(expectedBalances);
    // The runs: every event's handler started at least once (counted on its own before the
    // credit) and completed its credit transaction at least once; a kill between the two, or
    // between the credit and the inbox's record of the run's end, starts it again.
    Map<String, Long> started = ledger.runsStarted();
    Map<String, Long> completed = ledger.runsCompleted();
    assertThat(started.keySet()).isEqualTo(good.keySet());
    assertThat(completed.keySet()).isEqualTo(good.keySet());
    for (String event : good.keySet()) {
      assertThat(started.get(event)).as("runs started >= completed")
          .isGreaterThanOrEqualTo(completed.get(event));
    }
    long totalStarted = started.values().stream().mapToLong(Long::longValue).sum();
    long totalCompleted = completed.values().stream().mapToLong(Long::longValue).sum();
    long startedAgain = started.values().stream().filter(n -> n > 1).count();
    long completedAgain = completed.values().stream().filter(n -> n > 1).count();
    if (exactlyOnce) {
      // The credit and the completion commit together: each event's credit transaction
      // committed exactly once (a second commit would have failed on the constraint).
      assertThat(completed.values()).as("completed runs per event")
          .allSatisfy(n -> assertThat(n).isEqualTo(1L));
      assertThat(totalCompleted).as("runs == effects").isEqualTo(credits.size());
      assertThat(run.steps()).doesNotContainKeys("FAILED", "ABSORBED");
    } else {
      assertThat(totalCompleted).as("runs >= effects").isGreaterThanOrEqualTo(credits.size());
    }
    if (!run.kills().isEmpty()) {
      // The first kill held a run with its credit written: it was taken over and started again
      // (at least once: its committed credit absorbed; exactly once: the credit rolled back).
      assertThat(run.kills().get(0)).endsWith("held at EFFECT");
      assertThat(startedAgain).as("events started again").isPositive();
      assertThat(run.steps()).as("inbox events").containsKey("TAKEN_OVER");
    }
    // What the receivers printed: no delivery of a stored id carried other bytes (a forged body
    // never got past verification), nothing was dead-lettered, and no event was stored twice.
    assertThat(run.steps()).as("inbox events").doesNotContainKeys("MISMATCH", "DEAD_LETTERED");
    assertThat(run.steps().getOrDefault("ACCEPTED", 0L)).as("events stored")
        .isLessThanOrEqualTo(good.size());

    Map<String, Long> perSource = plan.good().stream().collect(Collectors.groupingBy(
        Event::source, TreeMap::new, Collectors.counting()));
    System.out.printf("webhook receiver kill test (%s): %d good events %s credited once each,"
        + " %d deliveries (%s), %d refused (400/401) and nothing of them stored; %d SIGKILLs"
        + " (%s), %d receiver starts; handler runs started %d (%d events more than once), credit"
        + " transactions committed %d (%d events more than once: repeats the ledger's unique"
        + " constraint absorbed);"
        + " receiver steps %s; sender %s, %d deliveries needed retries, %d events stored by an"
        + " attempt whose answer was lost; ms %s, seed %d%n",
        setting, credits.size(), perSource, run.answers().size(), perKind,
        run.answers().stream().filter(a -> !a.delivery().kind().good()).count(),
        run.kills().size(), run.kills(), run.starts(), totalStarted, startedAgain,
        totalCompleted, completedAgain, run.steps(),
        run.sender(), afterRetries, answerLost, run.millis(), SEED);
  }

  private static String keyOf(Event e) {
    return CreditLedger.key(e.source(), e.id());
  }
}
