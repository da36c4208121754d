package dev.oncely.server.servlet;

import static dev.oncely.server.servlet.PlainClient.newKey;
import static dev.oncely.server.servlet.PlainClient.wireKey;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.postgres.FleetDatabase;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.ReceiptEvent;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.ServerDialect;
import dev.oncely.server.servlet.PlainClient.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import okhttp3.HttpUrl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One key, one payload, {@value #REPEATS} requests released at once by one latch from as many
 * threads, against Tomcat and the filter on real receipt stores: the handler runs exactly once,
 * and every answer is the first one (replayed) or {@code 409} in progress. On MapDB (one
 * instance), and on PostgreSQL shared by two instances, each a Tomcat with its own endpoints and
 * its own store on one database: the unique constraint decides across the fleet.
 *
 * <p>To make the overlap certain instead of likely, the handler holds its answer until every other
 * request was answered (the {@code 409} runs) or has arrived (the waiting runs); it never sleeps.
 */
class ConcurrentRepeatsTest {
  private static final int REPEATS = 64;
  private static final String BODY = "{\"amount\":1200,\"currency\":\"EUR\",\"customer\":\"c-1\"}";
  private static final String PAYMENTS = "POST /payments";
  private static final EndpointPolicy ANSWER_409 = EndpointPolicy.builder("payments.create")
      .build();
  private static final EndpointPolicy WAIT = ANSWER_409.toBuilder()
      .inProgressWait(Duration.ofSeconds(20)).build();

  @TempDir
  Path dir;

  private final PaymentLedger ledger = new PaymentLedger();
  private final PlainClient client = new PlainClient();
  private final Arrivals arrivals = new Arrivals();
  private final List<ReceiptEvent.Kind> events = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  @Test
  void sixty_four_concurrent_repeats_on_mapdb_run_the_handler_once_and_the_rest_get_409() {
    PaymentsServlet servlet = new PaymentsServlet(ledger);
    HttpUrl url = instance(MapDbIntentStore.open(dir.resolve("receipts.mapdb")), ANSWER_409,
        servlet);
    CountDownLatch othersAnswered = new CountDownLatch(REPEATS - 1);
    servlet.beforeAnswer(() -> othersAnswered.await(30, TimeUnit.SECONDS));
    String key = wireKey(ServerDialect.IETF, newKey());

    List<Reply> replies = fire(List.of(url), key, r -> othersAnswered.countDown());

    assertOneRunAndTheRestInProgress(replies);
    Reply after = client.post(url, key, BODY);
    assertThat(after.replayed()).isTrue();
    assertThat(after.body()).isEqualTo(first(replies).body());
  }

  @Test
  void with_an_in_progress_wait_all_sixty_four_on_mapdb_get_the_first_answer() {
    PaymentsServlet servlet = new PaymentsServlet(ledger)
        .beforeAnswer(() -> arrivals.await(PAYMENTS, REPEATS, Duration.ofSeconds(30)));
    HttpUrl url = instance(MapDbIntentStore.open(dir.resolve("receipts.mapdb")), WAIT, servlet);

    List<Reply> replies = fire(List.of(url), wireKey(ServerDialect.IETF, newKey()), r -> { });

    assertAllGotTheFirstAnswer(replies);
  }

  @Test
  void sixty_four_concurrent_repeats_against_a_fast_handler_get_the_answer_or_409() {
    HttpUrl url = instance(MapDbIntentStore.open(dir.resolve("receipts.mapdb")), ANSWER_409,
        new PaymentsServlet(ledger));

    List<Reply> replies = fire(List.of(url), wireKey(ServerDialect.IETF, newKey()), r -> { });

    assertThat(ledger.effects()).isEqualTo(1);
    Reply first = first(replies);
    for (Reply r : replies) {
      if (r != first && r.status() != 409) {
        assertThat(r.replayed()).as(r.toString()).isTrue();
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.body()).isEqualTo(first.body());
      }
    }
  }

  @ParameterizedTest(name = "in-progress wait: {0}")
  @ValueSource(booleans = {false, true})
  void two_instances_on_one_postgres_database_run_the_handler_once_in_total(boolean wait) {
    FleetDatabase database = FleetDatabase.create();
    PaymentsServlet servlet = new PaymentsServlet(ledger);
    EndpointPolicy policy = wait ? WAIT : ANSWER_409;
    HttpUrl a = instance(postgres(database, "instance-a"), policy, servlet);
    HttpUrl b = instance(postgres(database, "instance-b"), policy, servlet);
    CountDownLatch othersAnswered = new CountDownLatch(REPEATS - 1);
    servlet.beforeAnswer(wait
        ? () -> arrivals.await(PAYMENTS, REPEATS, Duration.ofSeconds(30))
        : () -> othersAnswered.await(30, TimeUnit.SECONDS));
    String key = wireKey(ServerDialect.STRIPE, newKey());

    List<Reply> replies = fire(List.of(a, b), key, r -> othersAnswered.countDown());

    assertThat(arrivals.count(PAYMENTS)).isEqualTo(REPEATS);
    if (wait) {
      assertAllGotTheFirstAnswer(replies);
    } else {
      assertOneRunAndTheRestInProgress(replies);
    }
    Reply viaA = client.post(a, key, BODY);
    Reply viaB = client.post(b, key, BODY);
    assertThat(viaA.body()).isEqualTo(first(replies).body()).isEqualTo(viaB.body());
    assertThat(viaA.replayed()).isTrue();
    assertThat(viaB.replayed()).isTrue();
  }

  // --- helpers ---

  private void assertOneRunAndTheRestInProgress(List<Reply> replies) {
    assertThat(ledger.effects()).as("handler runs").isEqualTo(1);
    assertThat(replies).filteredOn(r -> r.status() == 201).singleElement()
        .satisfies(r -> assertThat(r.replayed()).isFalse());
    assertThat(replies).filteredOn(r -> r.status() == 409).hasSize(REPEATS - 1)
        .allSatisfy(r -> assertThat(r.header("Retry-After")).isEqualTo("1"));
    assertThat(events).filteredOn(e -> e == ReceiptEvent.Kind.RESERVED).hasSize(1);
    assertThat(events).filteredOn(e -> e == ReceiptEvent.Kind.IN_PROGRESS).hasSize(REPEATS - 1);
  }

  private void assertAllGotTheFirstAnswer(List<Reply> replies) {
    assertThat(ledger.effects()).as("handler runs").isEqualTo(1);
    Reply first = first(replies);
    assertThat(first.status()).isEqualTo(201);
    assertThat(replies).allSatisfy(r -> {
      assertThat(r.status()).as(r.toString()).isEqualTo(201);
      assertThat(r.body()).isEqualTo(first.body());
    });
    assertThat(replies).filteredOn(Reply::replayed).hasSize(REPEATS - 1);
    assertThat(events).filteredOn(e -> e == ReceiptEvent.Kind.RESERVED).hasSize(1);
    assertThat(events).doesNotContain(ReceiptEvent.Kind.IN_PROGRESS);
  }

  /** The answer of the request that ran the handler: the only one not marked as a replay. */
  private static Reply first(List<Reply> replies) {
    List<Reply> firsts = replies.stream().filter(r -> r.status() != 409 && !r.replayed())
        .toList();
    assertThat(firsts).as("answers not replayed and not 409").hasSize(1);
    return firsts.get(0);
  }

  /**
   * Sends {@value #REPEATS} POSTs with {@code key} and the same body from as many threads, all
   * released by one latch, spread over {@code urls}; {@code onAnswer} hears each as it arrives.
   */
  private List<Reply> fire(List<HttpUrl> urls, String key, Consumer<Reply> onAnswer) {
    ExecutorService threads = Executors.newFixedThreadPool(REPEATS);
    try {
      CountDownLatch ready = new CountDownLatch(REPEATS);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Reply>> futures = new ArrayList<>();
      for (int i = 0; i < REPEATS; i++) {
        HttpUrl url = urls.get(i % urls.size());
        futures.add(threads.submit(() -> {
          ready.countDown();
          go.await();
          Reply reply = client.post(url, key, BODY);
          onAnswer.accept(reply);
          return reply;
        }));
      }
      assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
      go.countDown();
      List<Reply> replies = new ArrayList<>();
      for (Future<Reply> f : futures) {
        replies.add(f.get(60, TimeUnit.SECONDS));
      }
      return replies;
    } catch (Exception e) {
      throw new AssertionError("a request failed", e);
    } finally {
      threads.shutdownNow();
    }
  }

  /** Tomcat, the arrivals filter and the idempotency filter over {@code store}, on POST /payments. */
  private HttpUrl instance(IntentStore store, EndpointPolicy policy, PaymentsServlet servlet) {
    ServerDialect dialect = store instanceof PostgresIntentStore ? ServerDialect.STRIPE
        : ServerDialect.IETF;
    IdempotentEndpoints endpoints = IdempotentEndpoints.builder(ReceiptStore.on(store))
        .dialect(dialect)
        .listener(e -> events.add(e.kind()))
        .build();
    open.add(endpoints.receipts());
    open.add(endpoints);
    TomcatServer server = TomcatServer.builder()
        .filter(arrivals)
        .filter(new IdempotencyFilter(endpoints,
            EndpointRoutes.builder().route("POST", "/payments", policy).build()))
        .servlet(servlet)
        .start();
    open.add(0, server);
    return server.url("/payments");
  }

  /** One fleet instance's store on {@code database}: its own pool and lease owner. */
  private IntentStore postgres(FleetDatabase database, String owner) {
    HikariDataSource pool = database.pool(REPEATS / 2 + 4);
    open.add(pool);
    return PostgresIntentStore.builder(pool).owner(owner).build();
  }
}
