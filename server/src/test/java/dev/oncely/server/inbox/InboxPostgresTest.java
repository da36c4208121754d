package dev.oncely.server.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ReceiptPostgres;
import dev.oncely.postgres.ServerPostgres;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The inbox contract on PostgreSQL, each store in a schema of its own on one database of the
 * shared test server; another instance is a store of its own (another lease owner) on the same
 * schema, as a fleet member is. And the fleet itself: two inboxes on one table run each of many
 * messages exactly once between them.
 */
class InboxPostgresTest extends InboxContract {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static final AtomicInteger OWNERS = new AtomicInteger();
  private static ServerPostgres db;
  private final Map<IntentStore, Opened> stores = new IdentityHashMap<>();

  private record Opened(String schema, @Nullable StoreEncryption encryption) {}

  @BeforeAll
  static void database() {
    db = ServerPostgres.create();
  }

  @AfterAll
  static void closeDatabase() {
    db.close();
  }

  @Override
  IntentStore openStore(@Nullable StoreEncryption encryption) {
    String schema = "inbox_" + SCHEMAS.incrementAndGet();
    PostgresIntentStore.migrate(db.pool(), schema);
    return open(new Opened(schema, encryption));
  }

  private IntentStore open(Opened opened) {
    PostgresIntentStore.Builder b = PostgresIntentStore.builder(db.pool())
        .schema(opened.schema()).owner("store-" + OWNERS.incrementAndGet());
    if (opened.encryption() != null) {
      b.encryption(opened.encryption());
    }
    IntentStore store = b.build();
    stores.put(store, opened);
    return store;
  }

  @Override
  IntentStore reopen(IntentStore store) {
    store.close();
    return open(stores.get(store));
  }

  @Override
  IntentStore otherInstance(IntentStore store) {
    return open(stores.get(store.underlying()));
  }

  @Override
  void instanceDied(IntentStore instanceStore) {
    instanceStore.close();
  }

  @Override
  byte[] bytesAtRest() throws Exception {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (String schema : stores.values().stream().map(Opened::schema).distinct().toList()) {
      all.write(ReceiptPostgres.bytesAtRest(db.pool(), schema + ".oncely_intent"));
    }
    return all.toByteArray();
  }

  @Test
  void two_instances_on_one_database_run_500_messages_exactly_once_between_them()
      throws Exception {
    int messages = 500;
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> byInstance = new ConcurrentHashMap<>();
    CountDownLatch handled = new CountDownLatch(messages);
    InboxListener countHandled = e -> {
      if (e.kind() == InboxEvent.Kind.HANDLED && e.source().equals("fleet")) {
        handled.countDown();
      }
    };
    List<Inbox> fleet = new ArrayList<>();
    for (String name : List.of("instance-a", "instance-b")) {
      IntentStore own = opened(otherInstance(store));
      fleet.add(start(Inbox.builder(own).instance(name).workers(4).listener(countHandled)
          .handler("fleet", m -> {
            runs.computeIfAbsent(m.messageId(), k -> new AtomicInteger()).incrementAndGet();
            byInstance.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
          })));
    }

    List<Thread> senders = new ArrayList<>();
    for (int s = 0; s < 2; s++) {
      Inbox via = fleet.get(s);
      int first = s;
      Thread t = new Thread(() -> {
        for (int i = first; i < messages; i += 2) {
          via.accept("fleet", "m-" + i, null, new byte[] {(byte) i}, null);
        }
      });
      senders.add(t);
      t.start();
    }
    for (Thread t : senders) {
      t.join();
    }
    assertThat(handled.await(120, TimeUnit.SECONDS)).as("every message handled").isTrue();

    assertThat(runs).hasSize(messages);
    assertThat(runs.values()).allSatisfy(n -> assertThat(n).hasValue(1));
    int a = byInstance.getOrDefault("instance-a", new AtomicInteger()).get();
    int b = byInstance.getOrDefault("instance-b", new AtomicInteger()).get();
    assertThat(a + b).isEqualTo(messages);
    assertThat(a).as("instance a ran some").isPositive();
    assertThat(b).as("instance b ran some").isPositive();
    assertThat(fleet.get(0).listUnfinished()).isEmpty();
  }
}
