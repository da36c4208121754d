package dev.oncely.examples.webhookkill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.postgres.ExamplesPostgres;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxHandler;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.postgres.PostgresInbox;
import dev.oncely.server.servlet.WebhookServlet;
import dev.oncely.server.webhook.GitHubSignatures;
import dev.oncely.server.webhook.StandardWebhooks;
import dev.oncely.server.webhook.StripeSignatures;
import dev.oncely.server.webhook.WebhookReceiver;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;

/**
 * A webhook receiver in its own JVM, for {@link WebhookReceiverKillTest} to SIGKILL and restart on
 * the same files: embedded Tomcat serving {@link WebhookServlet} at {@code /webhooks/*} with three
 * sources, {@code standard} (Standard Webhooks), {@code stripe} and {@code github}, each secret
 * from the environment variable {@value #SECRET_ENV} and the source's name in capitals; an {@link
 * Inbox}; and a handler that makes one credit per event in a {@link CreditLedger}, counting the
 * run there first. Two settings:
 *
 * <ul>
 *   <li>{@code --engine mapdb --inbox F --ledger L}: the inbox on MapDB, the ledger in SQLite,
 *       the handler at least once: the credit commits on its own, the ledger's constraint absorbs
 *       a repeated run;
 *   <li>{@code --engine postgres --jdbc URL}: the inbox in a PostgreSQL schema of its own shared by
 *       a fleet, the ledger in the same database, the handler exactly once through {@link
 *       PostgresInbox}: the credit commits with the message's completion.
 * </ul>
 *
 * <p>What it prints on stdout, so the parent waits on lines instead of polling: {@code LISTENING
 * <base url>} once it serves; {@code STEP <kind>} for every {@link
 * dev.oncely.server.inbox.InboxEvent} kind the inbox emits, and from the handler {@code STEP RAN}
 * (the run is counted), {@code STEP EFFECT} (the credit committed; on PostgreSQL written, to
 * commit with the completion) or {@code STEP ABSORBED} (a repeated run found its credit); {@code
 * HELD <step>} when a worker parks at an armed hold point; {@code STOPPED} after a clean stop.
 * Never an event id, a payload or a secret.
 *
 * <p>What it reads on stdin: {@code HOLD <RAN|EFFECT> <n>} parks the worker that reaches that
 * step the {@code n}-th time from now (until the parent SIGKILLs the JVM: a kill at a known point
 * of a run, where the inbox knows the run started and not that it ended; {@code HOLD NONE 0}
 * disarms it); {@code STOP} stops cleanly and exits 0. The end of stdin (the parent died) halts
 * it.
 *
 * <p>{@code GET /stats} answers {@code
 * {"effects":..,"started":..,"completed":..,"unfinished":..,"dead":..}}: the ledger's totals and
 * the inbox's unfinished and dead messages.
 */
public final class WebhookReceiverChild {
  /**
   * The start of the environment variables carrying the sources' secrets (kept out of the command
   * line): {@code ONCELY_TEST_WEBHOOK_SECRET_STRIPE} for {@code stripe}.
   */
  static final String SECRET_ENV = "ONCELY_TEST_WEBHOOK_SECRET_";
  /** The PostgreSQL schema of the fleet's shared inbox. */
  static final String INBOX_SCHEMA = "oncely_inbox";
  /** The inbox lease and the PostgreSQL store's: a killed receiver's runs are taken over after. */
  static final Duration LEASE = Duration.ofSeconds(2);

  private static final ObjectMapper JSON = new ObjectMapper();

  private WebhookReceiverChild() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    String instance = options.get("instance");
    PrintStream out = System.out;
    Hold hold = new Hold(out);
    IntentStore store;
    CreditLedger ledger;
    InboxHandler handler;
    AutoCloseable pool = () -> { };
    if ("postgres".equals(options.get("engine"))) {
      HikariDataSource dataSource = ExamplesPostgres.pool(options.get("jdbc"), 16);
      pool = dataSource;
      PostgresIntentStore messages = PostgresIntentStore.builder(dataSource)
          .schema(INBOX_SCHEMA).lease(LEASE).build();
      store = messages;
      ledger = CreditLedger.postgres(dataSource);
      handler = PostgresInbox.handler(dataSource, messages,
          (m, connection) -> creditInTransaction(m, connection, ledger, instance, hold, out));
    } else {
      store = MapDbIntentStore.open(Path.of(options.get("inbox")));
      ledger = CreditLedger.sqlite(Path.of(options.get("ledger")));
      handler = m -> creditOnce(m, ledger, instance, hold, out);
    }
    Inbox inbox = Inbox.builder(store)
        .instance(instance)
        .lease(LEASE)
        .pollInterval(Duration.ofMillis(200))
        .backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
        .workers(4)
        .listener(e -> print(out, "STEP " + e.kind()))
        .handler(WebhookPlan.STANDARD, handler)
        .handler(WebhookPlan.STRIPE, handler)
        .handler(WebhookPlan.GITHUB, handler)
        .build();
    WebhookReceiver receiver = WebhookReceiver.builder(inbox)
        .source(WebhookPlan.STANDARD,
            StandardWebhooks.builder().secret(secretOf(WebhookPlan.STANDARD)).build())
        .source(WebhookPlan.STRIPE,
            StripeSignatures.builder().secret(secretOf(WebhookPlan.STRIPE)).build())
        .source(WebhookPlan.GITHUB,
            GitHubSignatures.builder().secret(secretOf(WebhookPlan.GITHUB)).build())
        .build();
    Path tomcatDir = Files.createDirectories(Path.of(options.get("tomcat")));
    Tomcat tomcat = startTomcat(tomcatDir, Integer.parseInt(options.get("port")), receiver,
        new StatsServlet(inbox, ledger));
    print(out, "LISTENING http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/");

    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] words = line.trim().split(" ");
        if (words[0].equals("HOLD")) {
          hold.arm(words[1], Integer.parseInt(words[2]));
        } else if (words[0].equals("STOP")) {
          tomcat.stop();
          tomcat.destroy();
          inbox.close(Duration.ofSeconds(5));
          store.close();
          ledger.close();
          pool.close();
          print(out, "STOPPED");
          System.exit(0);
        }
      }
    }
    // The parent is gone: nobody will stop or kill this receiver.
    Runtime.getRuntime().halt(3);
  }

  /**
   * The at-least-once handler (MapDB): count the run, credit in a transaction of its own, a
   * repeated run absorbed by the ledger's constraint; the hold points after each.
   */
  private static void creditOnce(InboxMessage m, CreditLedger ledger, String instance, Hold hold,
      PrintStream out) throws IOException, SQLException {
    JsonNode data = JSON.readTree(m.payload()).path("data");
    ledger.countStart(m.source(), m.messageId());
    print(out, "STEP RAN");
    hold.reached("RAN");
    boolean made = ledger.credit(m.source(), m.messageId(), data.path("customer").asText(),
        data.path("amount").asLong(), instance);
    print(out, made ? "STEP EFFECT" : "STEP ABSORBED");
    hold.reached("EFFECT");
  }

  /**
   * The exactly-once handler (PostgreSQL, through {@link PostgresInbox}): count the run on its
   * own, then write the credit in the transaction that commits with the message's completion;
   * the hold points after each (the second with the credit written, not committed).
   */
  private static void creditInTransaction(InboxMessage m, Connection connection,
      CreditLedger ledger, String instance, Hold hold, PrintStream out)
      throws IOException, SQLException {
    JsonNode data = JSON.readTree(m.payload()).path("data");
    ledger.countStart(m.source(), m.messageId());
    print(out, "STEP RAN");
    hold.reached("RAN");
    CreditLedger.creditInTransaction(connection, m.source(), m.messageId(),
        data.path("customer").asText(), data.path("amount").asLong(), instance);
    print(out, "STEP EFFECT");
    hold.reached("EFFECT");
  }

  private static Tomcat startTomcat(Path baseDir, int port, WebhookReceiver receiver,
      HttpServlet stats) throws LifecycleException {
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    Connector connector = new Connector("HTTP/1.1");
    connector.setPort(port);
    connector.setProperty("address", "127.0.0.1");
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", baseDir.toString());
    if (context instanceof StandardContext standard) {
      // Its checks for leaked thread locals need --add-opens and only warn.
      standard.setClearReferencesThreadLocals(false);
      standard.setClearReferencesRmiTargets(false);
    }
    Tomcat.addServlet(context, "webhooks", new WebhookServlet(receiver));
    context.addServletMappingDecoded("/webhooks/*", "webhooks");
    Tomcat.addServlet(context, "stats", stats);
    context.addServletMappingDecoded("/stats", "stats");
    tomcat.start();
    if (connector.getLocalPort() <= 0) {
      throw new IllegalStateException("cannot bind port " + port);
    }
    return tomcat;
  }

  private static String secretOf(String source) {
    String secret = System.getenv(SECRET_ENV + source.toUpperCase(Locale.ROOT));
    if (secret == null) {
      throw new IllegalStateException("no secret for " + source + " in the environment");
    }
    return secret;
  }

  private static void print(PrintStream out, String line) {
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --name value, got " + args[i]);
      }
      options.put(args[i].substring(2), args[i + 1]);
    }
    for (String required : List.of("engine", "instance", "port", "tomcat")) {
      if (!options.containsKey(required)) {
        throw new IllegalArgumentException("--" + required + " is required");
      }
    }
    return options;
  }

  /** The armed hold point: the worker that reaches it parks until the JVM is killed. */
  private static final class Hold {
    private final PrintStream out;
    private final AtomicReference<String> step = new AtomicReference<>();
    private final AtomicInteger left = new AtomicInteger();

    Hold(PrintStream out) {
      this.out = out;
    }

    void arm(String at, int n) {
      left.set(n);
      step.set(at);
    }

    void reached(String at) {
      if (at.equals(step.get()) && left.decrementAndGet() == 0) {
        step.set(null);
        print(out, "HELD " + at);
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("a held run was interrupted", e);
        }
      }
    }
  }

  /** {@code GET /stats}: the ledger's totals and the inbox's unfinished and dead messages. */
  private static final class StatsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient Inbox inbox;
    private final transient CreditLedger ledger;

    StatsServlet(Inbox inbox, CreditLedger ledger) {
      this.inbox = inbox;
      this.ledger = ledger;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      CreditLedger.Totals totals;
      try {
        totals = ledger.totals();
      } catch (SQLException e) {
        response.sendError(503, "the ledger failed: " + e.getMessage());
        return;
      }
      List<InboxMessage> unfinished = inbox.listUnfinished();
      long dead = unfinished.stream().filter(m -> m.state() == InboxState.DEAD).count();
      byte[] body = JSON.writeValueAsBytes(Map.of("effects", totals.effects(),
          "started", totals.started(), "completed", totals.completed(),
          "unfinished", unfinished.size(), "dead", dead));
      response.setStatus(200);
      response.setContentType("application/json");
      response.setContentLength(body.length);
      response.getOutputStream().write(body);
    }
  }
}
