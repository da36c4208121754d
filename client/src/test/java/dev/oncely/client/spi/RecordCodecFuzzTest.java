package dev.oncely.client.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Mutated records through {@link RecordCodec#decode}: every outcome is a record or a typed store
 * exception, never another exception, an error or a hang. {@value #DEFAULT_CASES} cases per
 * build; {@code -Doncely.fuzz.cases=1000000} runs the long mode, {@code -Doncely.fuzz.seed} picks
 * the seed (printed with the counts).
 */
class RecordCodecFuzzTest {
  static final int DEFAULT_CASES = 4000;

  private static final StoreEncryption KEY_A = StoreEncryption.aes256Gcm(filled((byte) 1));
  private static final StoreEncryption KEY_B = StoreEncryption.aes256Gcm(filled((byte) 2));

  private static byte[] filled(byte b) {
    byte[] key = new byte[StoreEncryption.KEY_BYTES];
    java.util.Arrays.fill(key, b);
    return key;
  }

  @Test
  void mutated_records_decode_or_fail_with_a_typed_store_exception() {
    int cases = Integer.getInteger("oncely.fuzz.cases", DEFAULT_CASES);
    long seed = Long.getLong("oncely.fuzz.seed", 23L);
    SplittableRandom random = new SplittableRandom(seed);
    IntentRecord full = IntentStoreContract.fullRecord("tenant", "pay", "secret-key-1");
    IntentRecord minimal = IntentStoreContract.newRecord("tenant", "pay", "secret-key-2");
    RecordCodec plain = new RecordCodec();
    RecordCodec sealedA = new RecordCodec(KEY_A);
    List<byte[]> originals = List.of(plain.encode(full), plain.encode(minimal),
        sealedA.encode(full), sealedA.encode(minimal));
    List<RecordCodec> readers = List.of(plain, sealedA, new RecordCodec(KEY_B));
    RecordMutations.Kind[] kinds = RecordMutations.Kind.values();
    Map<String, Integer> outcomes = new java.util.TreeMap<>();
    Map<RecordMutations.Kind, Integer> perKind = new EnumMap<>(RecordMutations.Kind.class);
    for (int i = 0; i < cases; i++) {
      RecordMutations.Kind kind = kinds[random.nextInt(kinds.length)];
      byte[] mutated = RecordMutations.mutate(
          originals.get(random.nextInt(originals.size())), kind, random);
      RecordCodec reader = readers.get(random.nextInt(readers.size()));
      String outcome;
      try {
        IntentRecord back = reader.decode(mutated, "case " + i);
        reader.decode(reader.encode(back), "re-encoded case " + i);
        outcome = "decoded";
      } catch (StoreCorruptedException e) {
        assertThat(e.getMessage()).startsWith("case " + i);
        outcome = "StoreCorruptedException";
      } catch (StoreEncryptionException e) {
        outcome = "StoreEncryptionException";
      } catch (RuntimeException | Error e) {
        throw new AssertionError("seed " + seed + " case " + i + " (" + kind + ", "
            + java.util.HexFormat.of().formatHex(mutated) + ") threw " + e, e);
      }
      outcomes.merge(outcome, 1, Integer::sum);
      perKind.merge(kind, 1, Integer::sum);
    }
    System.out.println("RecordCodecFuzzTest seed " + seed + ": " + cases + " cases " + outcomes
        + " by kind " + perKind);
    assertThat(outcomes.getOrDefault("StoreCorruptedException", 0)).isPositive();
  }
}
