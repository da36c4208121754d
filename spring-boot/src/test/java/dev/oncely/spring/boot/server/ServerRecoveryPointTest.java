package dev.oncely.spring.boot.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.SpringTestFixtures;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ReceiptStore;
import dev.oncely.spring.boot.OncelyPropertyException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@link TransactionalRecoveryPoint} in a real Boot app whose {@code @Transactional} service writes
 * orders to PostgreSQL (client-postgres's test server): the recovery point is recorded after the
 * business transaction commits and never when it rolls back, so a handler that fails after the
 * commit leaves its receipt pending (the repeat gets {@code 202} and no second order) while one
 * that rolled back gives the key back (the retry places the order once). Also the receipt store on
 * PostgreSQL, and its refusal to share the client's table.
 */
class ServerRecoveryPointTest {
  private static final MediaType JSON = MediaType.get("application/json");

  @TempDir
  static Path dir;

  private static DataSource database;
  private static ConfigurableApplicationContext app;
  private final OkHttpClient http = new OkHttpClient();

  /** A Boot application on the test database: auto-configuration, no component scan. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    DataSource dataSource() {
      return database;
    }
  }

  @Service
  static class OrderBook {
    private final JdbcTemplate jdbc;
    private final TransactionalRecoveryPoint recoveryPoint;
    private final AtomicInteger rollbacksLeft = new AtomicInteger();
    /** Whether the receipt said "effects committed" just before each transaction's end. */
    private final List<Boolean> markedInside = new CopyOnWriteArrayList<>();

    OrderBook(JdbcTemplate jdbc, TransactionalRecoveryPoint recoveryPoint) {
      this.jdbc = jdbc;
      this.recoveryPoint = recoveryPoint;
    }

    @Transactional
    public String place(String order) {
      jdbc.update("INSERT INTO orders (id) VALUES (?)", order);
      recoveryPoint.effectsCommitted(order);
      markedInside.add(recoveryPoint.current().orElseThrow().receipt().effectsCommitted());
      if (rollbacksLeft.getAndDecrement() > 0) {
        throw new IllegalStateException("the transaction rolls back");
      }
      return order;
    }

    // Methods, not fields: the test reaches the bean through its transaction proxy.
    public AtomicInteger rollbacksLeft() {
      return rollbacksLeft;
    }

    public List<Boolean> markedInside() {
      return markedInside;
    }
  }

  /** The same application without a data source: a test registers one. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class BareApp {}

  @RestController
  static class Orders {
    private final OrderBook book;
    private final TransactionalRecoveryPoint recoveryPoint;
    final AtomicInteger failuresAfterCommitLeft = new AtomicInteger();
    /** Whether the receipt said "effects committed" right after each transaction returned. */
    final List<Boolean> markedAfter = new CopyOnWriteArrayList<>();

    Orders(OrderBook book, TransactionalRecoveryPoint recoveryPoint) {
      this.book = book;
      this.recoveryPoint = recoveryPoint;
    }

    @PostMapping("/orders")
    @IdempotentEndpoint(operation = "orders.place")
    ResponseEntity<String> place(@RequestBody Map<String, String> request, HandlerContext receipt) {
      String order;
      try {
        order = book.place(request.get("order"));
      } catch (IllegalStateException rolledBack) {
        return ResponseEntity.status(503).body("{\"retry\":true}");
      }
      markedAfter.add(receipt.receipt().effectsCommitted());
      if (failuresAfterCommitLeft.getAndDecrement() > 0) {
        throw new IllegalStateException("the handler dies after the commit");
      }
      return ResponseEntity.status(201).body("{\"order\":\"" + order + "\"}");
    }

    @PostMapping("/notes")
    @IdempotentEndpoint(operation = "notes.add")
    ResponseEntity<String> note(HandlerContext receipt) {
      recoveryPoint.effectsCommitted("note-1");
      return ResponseEntity.status(201).body(Boolean.toString(
          receipt.receipt().effectsCommitted()));
    }
  }

  @BeforeAll
  static void start() {
    database = SpringTestFixtures.freshDatabase();
    new JdbcTemplate(database).execute("CREATE TABLE orders (id text PRIMARY KEY)");
    app = new SpringApplicationBuilder(App.class, OrderBook.class, Orders.class)
        .properties("server.port=0", "spring.main.banner-mode=off",
            "oncely.server.enabled=true",
            "oncely.server.store.path=" + dir.resolve("receipts.db"),
            "oncely.store.engine=memory", "oncely.due-work.enabled=false",
            "oncely.resume-on-startup=false")
        .run();
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  /** An answer's status and body. */
  record Answer(int status, String body) {}

  private Answer post(String path, String json, String key) throws IOException {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    Request request = new Request.Builder().url("http://127.0.0.1:" + port + path)
        .header("Idempotency-Key", "\"" + key + "\"")
        .post(okhttp3.RequestBody.create(json, JSON)).build();
    try (Response response = http.newCall(request).execute()) {
      return new Answer(response.code(), response.body().string());
    }
  }

  private static int orders(String id) {
    return new JdbcTemplate(database).queryForObject("SELECT count(*) FROM orders WHERE id = ?",
        Integer.class, id);
  }

  private static Receipt unfinishedReceipt(String reference) {
    return app.getBean(ReceiptStore.class).listUnfinished().stream()
        .filter(r -> reference.equals(r.reference())).findFirst().orElse(null);
  }

  @Test
  void inside_a_transaction_the_recovery_point_is_recorded_when_it_commits() throws Exception {
    OrderBook book = app.getBean(OrderBook.class);
    Orders orders = app.getBean(Orders.class);
    book.markedInside().clear();
    orders.markedAfter.clear();

    Answer placed = post("/orders", "{\"order\":\"o-commit\"}", "commit-1");

    assertThat(placed.status()).isEqualTo(201);
    assertThat(book.markedInside()).containsExactly(false);
    assertThat(orders.markedAfter).containsExactly(true);
    assertThat(orders("o-commit")).isEqualTo(1);
  }

  @Test
  void a_handler_that_fails_after_the_commit_leaves_its_receipt_pending_and_never_runs_twice()
      throws Exception {
    app.getBean(Orders.class).failuresAfterCommitLeft.set(1);

    Answer failed = post("/orders", "{\"order\":\"o-died\"}", "died-1");
    Answer repeat = post("/orders", "{\"order\":\"o-died\"}", "died-1");

    assertThat(failed.status()).isEqualTo(500);
    assertThat(repeat.status()).isEqualTo(202);
    assertThat(orders("o-died")).isEqualTo(1);
    Receipt pending = unfinishedReceipt("o-died");
    assertThat(pending).isNotNull();
    assertThat(pending.state()).isEqualTo(ReceiptState.PENDING);
    assertThat(pending.reference()).isEqualTo("o-died");
  }

  @Test
  void a_rolled_back_transaction_records_nothing_and_the_retry_places_the_order_once()
      throws Exception {
    app.getBean(OrderBook.class).rollbacksLeft().set(1);

    Answer rolledBack = post("/orders", "{\"order\":\"o-rollback\"}", "rollback-1");
    int noOrderYet = orders("o-rollback");
    Answer retry = post("/orders", "{\"order\":\"o-rollback\"}", "rollback-1");

    assertThat(rolledBack.status()).isEqualTo(503);
    assertThat(noOrderYet).isZero();
    assertThat(retry.status()).isEqualTo(201);
    assertThat(orders("o-rollback")).isEqualTo(1);
  }

  @Test
  void outside_a_transaction_it_is_recorded_at_once_and_outside_a_request_it_does_nothing()
      throws Exception {
    Answer noted = post("/notes", "{}", "note-1");

    app.getBean(TransactionalRecoveryPoint.class).effectsCommitted("no request here");

    assertThat(noted).isEqualTo(new Answer(201, "true"));
    assertThat(app.getBean(TransactionalRecoveryPoint.class).current()).isEmpty();
  }

  @Test
  void receipts_in_postgres_live_on_the_apps_data_source_unless_the_client_keeps_intents_there() {
    DataSource fresh = SpringTestFixtures.freshDatabase();
    try (ConfigurableApplicationContext postgres = new SpringApplicationBuilder(BareApp.class)
        .properties("server.port=0", "spring.main.banner-mode=off", "oncely.server.enabled=true",
            "oncely.server.store.engine=postgres", "oncely.store.engine=memory",
            "oncely.due-work.enabled=false", "oncely.resume-on-startup=false")
        .initializers(context -> ((GenericApplicationContext) context)
            .registerBean("dataSource", DataSource.class, () -> fresh))
        .run()) {
      assertThat(postgres.getBean(ReceiptStore.class).intentStore())
          .isInstanceOf(PostgresIntentStore.class);
    }

    Throwable refused = null;
    DataSource both = SpringTestFixtures.freshDatabase();
    try (ConfigurableApplicationContext shared = new SpringApplicationBuilder(BareApp.class)
        .properties("server.port=0", "spring.main.banner-mode=off", "oncely.server.enabled=true",
            "oncely.server.store.engine=postgres", "oncely.due-work.enabled=false",
            "oncely.resume-on-startup=false")
        .initializers(context -> ((GenericApplicationContext) context)
            .registerBean("dataSource", DataSource.class, () -> both))
        .run()) {
      assertThat(shared).as("started with receipts and intents in one table").isNull();
    } catch (RuntimeException e) {
      refused = e;
    }
    Throwable cause = refused;
    while (cause != null && !(cause instanceof OncelyPropertyException)) {
      cause = cause.getCause();
    }
    assertThat(cause).isInstanceOfSatisfying(OncelyPropertyException.class, e -> {
      assertThat(e.property()).isEqualTo("oncely.server.store.engine");
      assertThat(e).hasMessageContaining("receipts and intents need stores of their own");
    });
  }
}
