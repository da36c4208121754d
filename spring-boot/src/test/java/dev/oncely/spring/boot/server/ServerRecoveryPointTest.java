package dev.oncely.spring.boot.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.spi.RecordCodec;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.SpringTestFixtures;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.Receipt;
import dev.oncely.server.ReceiptState;
import dev.oncely.server.ReceiptStore;
import dev.oncely.spring.boot.OncelyPropertyException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumMap;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@link TransactionalRecoveryPoint} in real Boot apps whose {@code @Transactional} service writes
 * orders to PostgreSQL (client-postgres's test server), with the receipts in a MapDB file and in
 * PostgreSQL beside the orders. Either way the recovery point counts only if the business
 * transaction commits: a handler that fails after the commit leaves its receipt pending (the
 * repeat gets {@code 202}, no second order) and one that rolled back gives the key back (the retry
 * places the order once). On PostgreSQL it is written in the business transaction itself; on
 * MapDB right after its commit.
 */
class ServerRecoveryPointTest {
  private static final MediaType JSON = MediaType.get("application/json");

  @TempDir
  static Path dir;

  /** Where the receipts are kept. */
  enum Receipts {
    MAPDB, POSTGRES
  }

  /** A running app and the database its orders are in. */
  record Running(ConfigurableApplicationContext context, DataSource database) {}

  private static final Map<Receipts, Running> APPS = new EnumMap<>(Receipts.class);
  private final OkHttpClient http = new OkHttpClient();

  /** A Boot application: auto-configuration, no component scan; a test registers the DataSource. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {}

  @Service
  static class OrderBook {
    private final JdbcTemplate jdbc;
    private final TransactionalRecoveryPoint recoveryPoint;
    private final ReceiptStore receipts;
    private final AtomicInteger rollbacksLeft = new AtomicInteger();
    /** Whether the handler's context said "effects committed" just before each commit. */
    private final List<Boolean> markedInside = new CopyOnWriteArrayList<>();
    /** The receipt's revision this transaction sees, less the one the store sees outside it. */
    private final List<Long> revisionAheadInside = new CopyOnWriteArrayList<>();

    OrderBook(JdbcTemplate jdbc, TransactionalRecoveryPoint recoveryPoint,
        ReceiptStore receipts) {
      this.jdbc = jdbc;
      this.recoveryPoint = recoveryPoint;
      this.receipts = receipts;
    }

    @Transactional
    public String place(String order) {
      jdbc.update("INSERT INTO orders (id) VALUES (?)", order);
      recoveryPoint.effectsCommitted(order);
      HandlerContext context = recoveryPoint.current().orElseThrow();
      markedInside.add(context.receipt().effectsCommitted());
      if (receipts.intentStore() instanceof PostgresIntentStore) {
        long inside = jdbc.queryForObject("SELECT revision FROM oncely_receipts.oncely_intent"
            + " WHERE lookup = ?", Long.class, (Object) RecordCodec.lookupKey(
                context.receipt().id()));
        revisionAheadInside.add(inside - receipts.get(context.receipt().id()).orElseThrow()
            .revision());
      }
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

    public List<Long> revisionAheadInside() {
      return revisionAheadInside;
    }
  }

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

  private static ConfigurableApplicationContext run(DataSource dataSource, String... properties) {
    return new SpringApplicationBuilder(App.class, OrderBook.class, Orders.class)
        .properties("server.port=0", "spring.main.banner-mode=off", "oncely.server.enabled=true",
            "oncely.store.engine=memory", "oncely.due-work.enabled=false",
            "oncely.resume-on-startup=false")
        .properties(properties)
        .initializers(context -> ((GenericApplicationContext) context)
            .registerBean("dataSource", DataSource.class, () -> dataSource))
        .run();
  }

  @BeforeAll
  static void start() {
    for (Receipts receipts : Receipts.values()) {
      DataSource database = SpringTestFixtures.freshDatabase();
      new JdbcTemplate(database).execute("CREATE TABLE orders (id text PRIMARY KEY)");
      APPS.put(receipts, new Running(receipts == Receipts.MAPDB
          ? run(database, "oncely.server.store.path=" + dir.resolve("receipts.db"))
          : run(database, "oncely.server.store.engine=postgres"), database));
    }
  }

  @AfterAll
  static void stop() {
    APPS.values().forEach(app -> app.context().close());
  }

  /** An answer's status and body. */
  record Answer(int status, String body) {}

  private Answer post(Receipts receipts, String path, String json, String key)
      throws IOException {
    int port = ((WebServerApplicationContext) APPS.get(receipts).context()).getWebServer()
        .getPort();
    Request request = new Request.Builder().url("http://127.0.0.1:" + port + path)
        .header("Idempotency-Key", "\"" + key + "\"")
        .post(okhttp3.RequestBody.create(json, JSON)).build();
    try (Response response = http.newCall(request).execute()) {
      return new Answer(response.code(), response.body().string());
    }
  }

  private static <T> T bean(Receipts receipts, Class<T> type) {
    return APPS.get(receipts).context().getBean(type);
  }

  private static int orders(Receipts receipts, String id) {
    return new JdbcTemplate(APPS.get(receipts).database()).queryForObject(
        "SELECT count(*) FROM orders WHERE id = ?", Integer.class, id);
  }

  private static Receipt unfinishedReceipt(Receipts receipts, String reference) {
    return bean(receipts, ReceiptStore.class).listUnfinished().stream()
        .filter(r -> reference.equals(r.reference())).findFirst().orElse(null);
  }

  @Test
  void receipts_in_postgres_are_in_a_schema_of_their_own_on_the_apps_data_source() {
    assertThat(bean(Receipts.POSTGRES, ReceiptStore.class).intentStore())
        .isInstanceOf(PostgresIntentStore.class);
    assertThat(bean(Receipts.MAPDB, ReceiptStore.class).intentStore())
        .isInstanceOf(MapDbIntentStore.class);
  }

  @Test
  void on_postgres_the_recovery_point_is_written_in_the_business_transaction() throws Exception {
    OrderBook book = bean(Receipts.POSTGRES, OrderBook.class);
    book.revisionAheadInside().clear();

    Answer placed = post(Receipts.POSTGRES, "/orders", "{\"order\":\"o-inside\"}", "inside-1");

    assertThat(placed.status()).isEqualTo(201);
    assertThat(book.revisionAheadInside()).as("the transaction sees the recovery point it wrote,"
        + " the store outside it does not yet").containsExactly(1L);
  }

  @Test
  void on_mapdb_the_recovery_point_is_recorded_right_after_the_commit() throws Exception {
    OrderBook book = bean(Receipts.MAPDB, OrderBook.class);
    Orders orders = bean(Receipts.MAPDB, Orders.class);
    book.markedInside().clear();
    orders.markedAfter.clear();

    Answer placed = post(Receipts.MAPDB, "/orders", "{\"order\":\"o-after\"}", "after-1");

    assertThat(placed.status()).isEqualTo(201);
    assertThat(book.markedInside()).containsExactly(false);
    assertThat(orders.markedAfter).containsExactly(true);
  }

  @ParameterizedTest
  @EnumSource(Receipts.class)
  void a_handler_that_fails_after_the_commit_leaves_its_receipt_pending_and_never_runs_twice(
      Receipts receipts) throws Exception {
    bean(receipts, Orders.class).failuresAfterCommitLeft.set(1);

    Answer failed = post(receipts, "/orders", "{\"order\":\"o-died\"}", "died-1");
    Answer repeat = post(receipts, "/orders", "{\"order\":\"o-died\"}", "died-1");

    assertThat(failed.status()).isEqualTo(500);
    assertThat(repeat.status()).isEqualTo(202);
    assertThat(orders(receipts, "o-died")).isEqualTo(1);
    Receipt pending = unfinishedReceipt(receipts, "o-died");
    assertThat(pending).isNotNull();
    assertThat(pending.state()).isEqualTo(ReceiptState.PENDING);
    assertThat(pending.effectsCommitted()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(Receipts.class)
  void a_rolled_back_transaction_records_nothing_and_the_retry_places_the_order_once(
      Receipts receipts) throws Exception {
    bean(receipts, OrderBook.class).rollbacksLeft().set(1);

    Answer rolledBack = post(receipts, "/orders", "{\"order\":\"o-rollback\"}", "rollback-1");
    int noOrderYet = orders(receipts, "o-rollback");
    Answer retry = post(receipts, "/orders", "{\"order\":\"o-rollback\"}", "rollback-1");

    assertThat(rolledBack.status()).isEqualTo(503);
    assertThat(noOrderYet).isZero();
    assertThat(retry.status()).isEqualTo(201);
    assertThat(orders(receipts, "o-rollback")).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Receipts.class)
  void outside_a_transaction_it_is_recorded_at_once_and_outside_a_request_it_does_nothing(
      Receipts receipts) throws Exception {
    Answer noted = post(receipts, "/notes", "{}", "note-1");

    bean(receipts, TransactionalRecoveryPoint.class).effectsCommitted("no request here");

    assertThat(noted).isEqualTo(new Answer(201, "true"));
    assertThat(bean(receipts, TransactionalRecoveryPoint.class).current()).isEmpty();
  }

  @Test
  void receipts_in_the_schema_of_the_clients_postgres_intents_are_refused() {
    DataSource database = SpringTestFixtures.freshDatabase();
    Throwable refused = null;
    try (ConfigurableApplicationContext shared = run(database,
        "oncely.store.engine=postgres", "oncely.server.store.engine=postgres",
        "oncely.server.store.schema=public")) {
      assertThat(shared).as("started with receipts and intents in one table").isNull();
    } catch (RuntimeException e) {
      refused = e;
    }
    Throwable cause = refused;
    while (cause != null && !(cause instanceof OncelyPropertyException)) {
      cause = cause.getCause();
    }
    assertThat(cause).isInstanceOfSatisfying(OncelyPropertyException.class, e -> {
      assertThat(e.property()).isEqualTo("oncely.server.store.schema");
      assertThat(e).hasMessageContaining("receipts and intents need tables of their own");
    });
  }
}
