package dev.oncely.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.IntentStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreEngineTest {
  @TempDir Path dir;

  @Test
  void mapdb_is_the_default_engine() {
    assertThat(StoreEngine.defaultEngine()).isEqualTo(StoreEngine.MAPDB);
  }

  @Test
  void each_engine_opens_its_own_store_and_reopens_what_it_wrote() {
    for (StoreEngine engine : StoreEngine.values()) {
      Path file = dir.resolve(engine + ".db");
      IntentRecord record = IntentStoreContract.fullRecord("s", "op", "k-" + engine);
      try (IntentStore store = engine.open(file)) {
        assertThat(store).isInstanceOf(
            engine == StoreEngine.MAPDB ? MapDbIntentStore.class : SqliteIntentStore.class);
        store.create(record);
      }
      try (IntentStore store = engine.open(file)) {
        assertThat(store.get(record.id())).contains(record);
      }
    }
  }

  @Test
  void parse_accepts_any_case_and_names_a_bad_value() {
    assertThat(StoreEngine.parse(" SQLite ")).isEqualTo(StoreEngine.SQLITE);
    assertThat(StoreEngine.parse(StoreEngine.MAPDB.toString())).isEqualTo(StoreEngine.MAPDB);
    assertThatThrownBy(() -> StoreEngine.parse("rocksdb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'rocksdb'")
        .hasMessageContaining("mapdb, sqlite");
  }
}
