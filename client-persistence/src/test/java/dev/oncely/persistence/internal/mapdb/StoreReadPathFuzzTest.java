package dev.oncely.persistence.internal.mapdb;

import static dev.oncely.client.spi.IntentStoreContract.fullRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import dev.oncely.client.spi.RecordCodec;
import dev.oncely.client.spi.RecordMutations;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.client.spi.sql.UnfinishedStub;
import dev.oncely.persistence.SqliteIntentStore;
import dev.oncely.persistence.StoreOptions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutated records and unfinished stubs (bit flips, truncations, hostile lengths, times and state
 * codes, CRC recomputed) placed in real store files and read through each engine's read path
 * (get, business-id lookup, listings): every outcome is a record or a typed store exception.
 * {@value #DEFAULT_CASES} cases per engine per build; {@code -Doncely.fuzz.storeCases=n} for more.
 */
class StoreReadPathFuzzTest {
  static final int DEFAULT_CASES = 300;

  private static final StoreEncryption KEY = StoreEncryption.aes256Gcm(filled((byte) 7));
  private static final RecordMutations.Kind[] STUB_KINDS = {
      RecordMutations.Kind.BIT_FLIPS, RecordMutations.Kind.BIT_FLIPS_CRC,
      RecordMutations.Kind.TRUNCATION_CRC, RecordMutations.Kind.INSERTION_CRC,
      RecordMutations.Kind.DELETION_CRC, RecordMutations.Kind.HOSTILE_INT_CRC,
      RecordMutations.Kind.RANDOM_BYTES};

  @TempDir Path dir;

  private final Map<String, Integer> outcomes = new TreeMap<>();

  private static byte[] filled(byte b) {
    byte[] key = new byte[StoreEncryption.KEY_BYTES];
    Arrays.fill(key, b);
    return key;
  }

  private static int cases() {
    return Integer.getInteger("oncely.fuzz.storeCases", DEFAULT_CASES);
  }

  private static IntentRecord recordOf(int i) {
    IntentRecord r = fullRecord("tenant", "pay", "key-" + i).toBuilder()
        .businessId("order-" + i).build();
    return i % 2 == 0 ? r : r.toBuilder().state(IntentState.COMPLETED).build();
  }

  private void expectTyped(String what, Supplier<?> read) {
    String outcome;
    try {
      read.get();
      outcome = "read";
    } catch (StoreCorruptedException e) {
      outcome = "StoreCorruptedException";
    } catch (StoreEncryptionException e) {
      outcome = "StoreEncryptionException";
    } catch (RuntimeException | Error e) {
      throw new AssertionError(what + " threw " + e, e);
    }
    outcomes.merge(outcome, 1, Integer::sum);
  }

  private static byte[] mutateStub(byte[] stub, SplittableRandom random) {
    return RecordMutations.mutate(stub, STUB_KINDS[random.nextInt(STUB_KINDS.length)], random);
  }

  @Test
  void mapdb_read_path_gives_records_or_typed_errors() {
    SplittableRandom random = new SplittableRandom(Long.getLong("oncely.fuzz.seed", 23L));
    RecordMutations.Kind[] kinds = RecordMutations.Kind.values();
    for (StoreEncryption encryption : new StoreEncryption[] {null, KEY}) {
      MapDbRecords records = new MapDbRecords(encryption);
      UnfinishedStub stubs = new UnfinishedStub(encryption);
      try (MapDbFile file = MapDbFile.create(dir.resolve("copy-" + (encryption == null)), 0,
          FileIo.DEFAULT)) {
        List<IntentRecord> written = new ArrayList<>();
        MapDbBatch batch = new MapDbBatch(file);
        for (int i = 0; i < cases(); i++) {
          IntentRecord r = recordOf(i);
          records.create(batch, records.encode(r));
          written.add(r);
        }
        batch.apply();
        RecordCodec codec = new RecordCodec(encryption);
        Map<String, byte[]> indexKeys = new java.util.HashMap<>();
        for (Map.Entry<byte[], byte[]> e : file.all(MapDbFile.UNFINISHED)) {
          indexKeys.put(Arrays.toString(Arrays.copyOfRange(e.getKey(), 12, e.getKey().length)),
              e.getKey());
        }
        for (IntentRecord r : written) {
          byte[] lookup = RecordCodec.lookupKey(r.id());
          file.put(MapDbFile.RECORDS, lookup, RecordMutations.mutate(codec.encode(r),
              kinds[random.nextInt(kinds.length)], random));
          byte[] indexKey = indexKeys.get(Arrays.toString(lookup));
          if (indexKey != null) {
            file.put(MapDbFile.UNFINISHED, indexKey, mutateStub(stubs.encode(r), random));
          }
        }
        for (IntentRecord r : written) {
          expectTyped("get " + r.id(), () -> records.get(file, r.id()));
          expectTyped("find " + r.businessId(), () -> records.findByBusinessId(file,
              r.id().scope(), r.id().operation(), r.businessId()));
        }
        expectTyped("listUnfinished", () -> records.listUnfinished(file));
        expectTyped("listUnfinishedIds", () -> records.listUnfinishedIds(file));
        expectTyped("forEachFinished", () -> {
          records.forEachFinished(file, r -> { });
          return null;
        });
      }
    }
    System.out.println("StoreReadPathFuzzTest mapdb: " + cases() + " records x 2 keys " + outcomes);
    assertThat(outcomes.get("StoreCorruptedException")).isPositive();
  }

  @Test
  void sqlite_read_path_gives_records_or_typed_errors() throws Exception {
    SplittableRandom random = new SplittableRandom(Long.getLong("oncely.fuzz.seed", 23L));
    RecordMutations.Kind[] kinds = RecordMutations.Kind.values();
    Path path = dir.resolve("intents.db");
    StoreOptions options = StoreOptions.builder().encryption(KEY).build();
    List<IntentRecord> written = new ArrayList<>();
    try (IntentStore store = SqliteIntentStore.open(path, options)) {
      for (int i = 0; i < cases(); i++) {
        IntentRecord r = recordOf(i);
        store.create(r);
        written.add(r);
      }
    }
    RecordCodec codec = new RecordCodec(KEY);
    UnfinishedStub stubs = new UnfinishedStub(KEY);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + path);
        PreparedStatement record = c.prepareStatement(
            "UPDATE intent SET record = ? WHERE lookup = ?");
        PreparedStatement stub = c.prepareStatement(
            "UPDATE intent SET stub = ? WHERE lookup = ? AND stub IS NOT NULL")) {
      c.setAutoCommit(false);
      for (IntentRecord r : written) {
        byte[] lookup = RecordCodec.lookupKey(r.id());
        record.setBytes(1, RecordMutations.mutate(codec.encode(r),
            kinds[random.nextInt(kinds.length)], random));
        record.setBytes(2, lookup);
        record.executeUpdate();
        stub.setBytes(1, mutateStub(stubs.encode(r), random));
        stub.setBytes(2, lookup);
        stub.executeUpdate();
      }
      c.commit();
    }
    try (IntentStore store = SqliteIntentStore.open(path, options)) {
      for (IntentRecord r : written) {
        expectTyped("get " + r.id(), () -> store.get(r.id()));
        expectTyped("find " + r.businessId(), () -> store.findByBusinessId(r.id().scope(),
            r.id().operation(), r.businessId()));
      }
      expectTyped("listUnfinished", store::listUnfinished);
      expectTyped("listUnfinishedIds", store::listUnfinishedIds);
      expectTyped("forEachFinished", () -> {
        store.forEachFinished(r -> { });
        return null;
      });
    }
    System.out.println("StoreReadPathFuzzTest sqlite: " + cases() + " records " + outcomes);
    assertThat(outcomes.get("StoreCorruptedException")).isPositive();
  }
}
