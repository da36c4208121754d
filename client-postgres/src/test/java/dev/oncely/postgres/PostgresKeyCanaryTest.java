package dev.oncely.postgres;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.spi.StoreEncryption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The encryption canary on PostgreSQL: the first instance writes it, every later one is checked
 * against it when it is built, before it writes, like the file stores at open.
 */
class PostgresKeyCanaryTest {
  private static final StoreEncryption KEY_A = key((byte) 1);
  private static final StoreEncryption KEY_B = key((byte) 2);

  PgTestDatabase db;

  @BeforeEach
  void database() {
    db = PgTestDatabase.create();
  }

  @AfterEach
  void closeDatabase() {
    db.close();
  }

  private static StoreEncryption key(byte b) {
    byte[] key = new byte[StoreEncryption.KEY_BYTES];
    Arrays.fill(key, b);
    return StoreEncryption.aes256Gcm(key);
  }

  private PostgresIntentStore.Builder builder(StoreEncryption key) {
    return PostgresIntentStore.builder(db.pool).name("fleet").encryption(key);
  }

  @Test
  void an_instance_with_another_key_or_none_is_refused_when_built() {
    IntentRecord r = fullRecord("tenant", "pay", "k1");
    try (PostgresIntentStore store = builder(KEY_A).build()) {
      store.create(r);
    }
    assertThatThrownBy(() -> builder(KEY_B).build())
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("fleet")
        .hasMessageContaining("another encryption key");
    assertThatThrownBy(() -> builder(null).build())
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("the store is encrypted");
    try (PostgresIntentStore store = builder(KEY_A).build()) {
      assertThat(store.get(r.id())).contains(r);
    }
  }

  @Test
  void a_key_on_a_plain_fleet_is_refused_when_built() {
    builder(null).build().close();
    assertThatThrownBy(() -> builder(KEY_A).build())
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("created without encryption");
  }

  /** A schema that held records before the canary existed gets it only from a key that reads them. */
  @Test
  void records_written_before_the_canary_are_adopted_only_with_their_key() throws Exception {
    try (PostgresIntentStore store = builder(KEY_A).build()) {
      store.create(fullRecord("tenant", "pay", "k1"));
    }
    execute("DELETE FROM oncely_meta");
    assertThatThrownBy(() -> builder(KEY_B).build())
        .isInstanceOf(StoreEncryptionException.class);
    assertThat(metaRows()).as("a refused instance writes no canary").isZero();
    builder(KEY_A).build().close();
    assertThat(metaRows()).isEqualTo(2);
  }

  /**
   * Instances started together on a fresh schema all start: whichever writes the canary, the
   * others read both rows as one (a reader that saw one row missing and the other present, because
   * a neighbour's insert committed between two reads, took the store for damaged).
   */
  @Test
  void instances_started_together_on_a_fresh_schema_all_start() throws Exception {
    int instances = 8;
    ExecutorService threads = Executors.newFixedThreadPool(instances);
    try {
      for (int round = 0; round < 40; round++) {
        String schema = "together_" + round;
        PostgresIntentStore.migrate(db.pool, schema);
        CyclicBarrier start = new CyclicBarrier(instances);
        List<Future<?>> builds = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
          builds.add(threads.submit(() -> {
            start.await();
            PostgresIntentStore.builder(db.pool).name("fleet").schema(schema).build().close();
            return null;
          }));
        }
        for (Future<?> build : builds) {
          build.get(30, TimeUnit.SECONDS);
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private void execute(String sql) throws Exception {
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private int metaRows() throws Exception {
    try (Connection c = db.pool.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM oncely_meta")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
