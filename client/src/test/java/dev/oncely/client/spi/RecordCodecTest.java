package dev.oncely.client.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.StoreCorruptedException;
import dev.oncely.client.StoreEncryptionException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class RecordCodecTest {
  private static final byte[] KEY_A = filled((byte) 1);
  private static final byte[] KEY_B = filled((byte) 2);

  private final IntentRecord full = IntentStoreContract.fullRecord("tenant", "pay", "secret-key-1");
  private final IntentRecord minimal = IntentStoreContract.newRecord("tenant", "pay", "secret-key-2");

  private static byte[] filled(byte b) {
    byte[] key = new byte[StoreEncryption.KEY_BYTES];
    Arrays.fill(key, b);
    return key;
  }

  @Test
  void every_field_round_trips_plain_and_encrypted() {
    for (RecordCodec codec : new RecordCodec[] {
        new RecordCodec(), new RecordCodec(StoreEncryption.aes256Gcm(KEY_A))}) {
      assertThat(codec.decode(codec.encode(full), "t")).isEqualTo(full);
      assertThat(codec.decode(codec.encode(minimal), "t")).isEqualTo(minimal);
    }
  }

  @Test
  void a_thread_encodes_records_of_any_size_one_after_the_other() {
    byte[] big = new byte[200_000];
    Arrays.fill(big, (byte) 7);
    IntentRecord large = full.successor()
        .body(big, "application/octet-stream")
        .lastResponse(dev.oncely.client.StoredResponse.of(200, java.util.Map.of(), big))
        .build();
    RecordCodec codec = new RecordCodec();
    byte[] minimalAlone = codec.encode(minimal);
    for (IntentRecord r : List.of(full, large, minimal, large, full)) {
      assertThat(codec.decode(codec.encode(r), "t")).isEqualTo(r);
    }
    assertThat(codec.encode(minimal)).isEqualTo(minimalAlone);
  }

  /** Written by the version-1 codec of the never released 0.1.0 (commit d353887). */
  private static final String V1_RECORD = "4f5201000000000974656e616e742d34320000000e6372656174652d"
      + "7061796d656e7401000000036f2d3700000004504f53540000002068747470733a2f2f6170692e6578616d706c"
      + "652e636f6d2f7061796d656e747301000000106170706c69636174696f6e2f6a736f6e0000010000000100000000"
      + "0000000100000000006b0d492000000000000000006b0d492000000000000000006b0e9aa00000000000000000"
      + "4a0000000f6b2d76312d3031323334353637383900000004663030640000000100000008582d54656e616e7400"
      + "000001000000037434320000000f7b22616d6f756e74223a313030307d00e5e85a89";

  @Test
  void a_version_1_record_is_refused_as_corrupted() {
    byte[] v1 = java.util.HexFormat.of().parseHex(V1_RECORD);
    assertThatThrownBy(() -> new RecordCodec().decode(v1, "store.db"))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("version 1 is not supported");
  }

  /** Written by the version-2 codec of pre-release snapshots (commit 0293fe8): no retry policy. */
  private static final String V2_RECORD = "4f5202000000000674656e616e74000000037061790000000004"
      + "504f53540000002168747470733a2f2f6170692e6578616d706c652e746573742f7061796d656e747300"
      + "00000000000000000000000000000000000000006b0cbc8000000000000000006b0cbc80000000000000"
      + "00006b0e0e0000000000000000000000660000000c7365637265742d6b65792d3200000040"
      + "6364".repeat(32)
      + "0000000000000000000000000000000000008f415615";

  @Test
  void a_version_2_record_reads_as_one_without_its_own_retry_policy() {
    byte[] v2 = java.util.HexFormat.of().parseHex(V2_RECORD);

    IntentRecord read = new RecordCodec().decode(v2, "store.db");

    assertThat(read).isEqualTo(minimal);
    assertThat(read.retryPolicy()).isNull();
    assertThat(new RecordCodec().encode(read)[2]).isEqualTo((byte) RecordCodec.FORMAT_VERSION);
  }

  /**
   * Written by the version-3 codec (commit 8ae61b9): a completed record that keeps its request,
   * with a {@code Content-Encoding} and an {@code X-Trace} header and a 33-byte JSON body.
   */
  private static final String V3_RECORD = "4f5203000000000674656e616e740000000370617901000000076f726465722d3300000004504f5354000000"
      + "2168747470733a2f2f6170692e6578616d706c652e746573742f7061796d656e747301000000106170706c69"
      + "636174696f6e2f6a736f6e00000300000002000000000000000200000000006b0e9aa000000000000000006b"
      + "0e9aa200000000000000006b17d520000000000001010000000f4964656d706f74656e63792d4b6579000000"
      + "01080000000c7365637265742d6b65792d330000004065666566656665666566656665666566656665666566"
      + "6566656665666566656665666566656665666566656665666566656665666566656665666566656665660000"
      + "000200000007582d54726163650000000100000002743100000010436f6e74656e742d456e636f64696e6700"
      + "000001000000086964656e74697479000000207b22616d6f756e74223a313030302c2263757272656e637922"
      + "3a224a5059227d0100c900000001000000084c6f636174696f6e000000010000000d2f7061796d656e74732f"
      + "702d330000000c7b226964223a22702d33227d010000000e227365637265742d6b65792d3322000000000000"
      + "0000e4922c44";

  @Test
  void a_version_3_record_reads_as_one_that_keeps_its_request() {
    byte[] v3 = java.util.HexFormat.of().parseHex(V3_RECORD);

    IntentRecord read = new RecordCodec().decode(v3, "store.db");

    assertThat(read.requestDropped()).isFalse();
    assertThat(read.requestDigest()).isNull();
    assertThat(new String(read.body(), StandardCharsets.UTF_8))
        .isEqualTo("{\"amount\":1000,\"currency\":\"JPY\"}");
    assertThat(read.headers()).containsOnlyKeys("X-Trace", "Content-Encoding");
    assertThat(read.state()).isEqualTo(dev.oncely.client.IntentState.COMPLETED);
    assertThat(read.lastResponse().status()).isEqualTo(201);
    assertThat(read.businessId()).isEqualTo("order-3");
    assertThat(new RecordCodec().decode(new RecordCodec().encode(read), "t")).isEqualTo(read);
  }

  @Test
  void a_record_that_dropped_its_request_round_trips_plain_and_encrypted() {
    IntentRecord v3 = new RecordCodec().decode(java.util.HexFormat.of().parseHex(V3_RECORD), "s");
    IntentRecord dropped = v3.successor().dropRequest().build();
    for (RecordCodec codec : new RecordCodec[] {
        new RecordCodec(), new RecordCodec(StoreEncryption.aes256Gcm(KEY_A))}) {
      byte[] bytes = codec.encode(dropped);

      IntentRecord read = codec.decode(bytes, "t");

      assertThat(read).isEqualTo(dropped);
      assertThat(read.requestDropped()).isTrue();
      assertThat(read.body()).isEmpty();
      assertThat(read.headers()).containsOnlyKeys("Content-Encoding");
      assertThat(read.hasRequestBytes(v3.body())).isTrue();
      assertThat(read.hasRequestBytes("{}".getBytes(StandardCharsets.UTF_8))).isFalse();
      assertThat(bytes.length).isLessThan(codec.encode(v3).length - v3.bodyLength() + 40);
    }
  }

  @Test
  void the_request_dropped_flag_in_a_version_3_record_is_refused() {
    byte[] v3 = java.util.HexFormat.of().parseHex(V3_RECORD);
    v3[3] = 2;
    assertThatThrownBy(() -> new RecordCodec().decode(RecordMutations.withCrc(v3), "s"))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("unknown bits");
  }

  @Test
  void an_unfinished_record_that_claims_a_dropped_request_is_corruption() {
    IntentRecord v3 = new RecordCodec().decode(java.util.HexFormat.of().parseHex(V3_RECORD), "s");
    byte[] bytes = new RecordCodec().encode(v3.successor().dropRequest().build());
    // The state byte follows the public part's strings; find it by re-encoding with another state.
    byte[] pending = new RecordCodec().encode(v3.successor().dropRequest().build().toBuilder()
        .state(dev.oncely.client.IntentState.KEY_CONFLICT).build());
    int at = 0;
    while (bytes[at] == pending[at]) {
      at++;
    }
    bytes[at] = (byte) RecordCodec.stateCode(dev.oncely.client.IntentState.PENDING);

    assertThatThrownBy(() -> new RecordCodec().decode(RecordMutations.withCrc(bytes), "s"))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("only a finished record drops its request");
  }

  /** A policy's durations are stored as seconds and nanoseconds: no length overflows them. */
  @Test
  void a_retry_policy_of_any_length_round_trips() {
    dev.oncely.client.RetryPolicy forever = dev.oncely.client.RetryPolicy.builder()
        .maxAttempts(Integer.MAX_VALUE).baseDelay(java.time.Duration.ofNanos(1))
        .maxDelay(java.time.Duration.ofDays(365L * 1_000_000))
        .deadline(java.time.Duration.ofSeconds(Long.MAX_VALUE / 2, 999_999_999))
        .attemptTimeout(java.time.Duration.ofMillis(1)).build();
    IntentRecord record = minimal.toBuilder().retryPolicy(forever).build();

    assertThat(new RecordCodec().decode(new RecordCodec().encode(record), "t").retryPolicy())
        .isEqualTo(forever);
  }

  /** The stored codes are the format: reordering IntentState must never change them. */
  @Test
  void state_codes_are_pinned() {
    java.util.Map<dev.oncely.client.IntentState, Integer> expected = java.util.Map.of(
        dev.oncely.client.IntentState.NEW, 0,
        dev.oncely.client.IntentState.IN_FLIGHT, 1,
        dev.oncely.client.IntentState.PENDING, 2,
        dev.oncely.client.IntentState.COMPLETED, 3,
        dev.oncely.client.IntentState.REJECTED, 4,
        dev.oncely.client.IntentState.KEY_CONFLICT, 5,
        dev.oncely.client.IntentState.NEEDS_RECONCILIATION, 6);
    assertThat(expected).hasSize(dev.oncely.client.IntentState.values().length);
    for (var e : expected.entrySet()) {
      assertThat(RecordCodec.stateCode(e.getKey())).as("%s", e.getKey()).isEqualTo(e.getValue());
      IntentRecord r = minimal.toBuilder().state(e.getKey()).build();
      assertThat(new RecordCodec().decode(new RecordCodec().encode(r), "t").state())
          .isEqualTo(e.getKey());
    }
  }

  @Test
  void a_plain_record_is_refused_by_a_codec_with_a_key() {
    byte[] plain = new RecordCodec().encode(full);
    assertThatThrownBy(() -> new RecordCodec(StoreEncryption.aes256Gcm(KEY_A)).decode(plain, "s"))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("not encrypted");
  }

  @Test
  void unknown_flag_bits_are_refused() {
    byte[] bytes = new RecordCodec().encode(minimal);
    bytes[3] = 4;
    assertThatThrownBy(() -> new RecordCodec().decode(RecordMutations.withCrc(bytes), "s"))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("unknown bits");
  }

  @Test
  void out_of_range_times_are_corruption_even_with_a_valid_checksum() {
    byte[] bytes = new RecordCodec().encode(minimal);
    int created = RecordMutations.createdAtOffset(bytes);
    for (long seconds : new long[] {Long.MAX_VALUE, Long.MIN_VALUE, Instant.MAX.getEpochSecond() + 1}) {
      byte[] mutated = bytes.clone();
      java.nio.ByteBuffer.wrap(mutated).putLong(created, seconds);
      assertThatThrownBy(() -> new RecordCodec().decode(RecordMutations.withCrc(mutated), "s"))
          .isInstanceOf(StoreCorruptedException.class)
          .hasMessageContaining("out of range");
    }
    byte[] nanos = bytes.clone();
    java.nio.ByteBuffer.wrap(nanos).putInt(created + 8, -1);
    assertThatThrownBy(() -> new RecordCodec().decode(RecordMutations.withCrc(nanos), "s"))
        .isInstanceOf(StoreCorruptedException.class);
  }

  @Test
  void version_2_fields_round_trip() {
    RecordCodec codec = new RecordCodec(StoreEncryption.aes256Gcm(KEY_A));
    IntentRecord back = codec.decode(codec.encode(full), "t");
    assertThat(back.maybeDelivered()).isTrue();
    assertThat(back.keyHeader()).isEqualTo("Idempotency-Key");
    assertThat(back.keyValue()).isEqualTo("\"secret-key-1\"");
    assertThat(back.traceContext()).containsKey("traceparent");
    assertThat(back.notes()).hasSize(1);
  }

  @Test
  void every_single_bit_flip_is_detected() {
    byte[] bytes = new RecordCodec().encode(full);
    for (int i = 0; i < bytes.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] damaged = bytes.clone();
        damaged[i] ^= (byte) (1 << bit);
        int at = i;
        assertThatThrownBy(() -> new RecordCodec().decode(damaged, "flip@" + at))
            .isInstanceOf(StoreCorruptedException.class)
            .hasMessageStartingWith("flip@" + at);
      }
    }
  }

  @Test
  void every_truncation_is_detected() {
    byte[] bytes = new RecordCodec().encode(full);
    for (int length = 0; length < bytes.length; length++) {
      byte[] cut = Arrays.copyOf(bytes, length);
      assertThatThrownBy(() -> new RecordCodec().decode(cut, "cut"))
          .isInstanceOf(StoreCorruptedException.class);
    }
  }

  @Test
  void a_future_format_version_is_a_clear_error() {
    byte[] bytes = new RecordCodec().encode(minimal);
    bytes[2] = 9;
    assertThatThrownBy(() -> new RecordCodec().decode(bytes, "store.db"))
        .isInstanceOf(StoreCorruptedException.class)
        .hasMessageContaining("version 9")
        .hasMessageContaining("reads versions " + RecordCodec.OLDEST_READ_VERSION + " to "
            + RecordCodec.FORMAT_VERSION);
  }

  @Test
  void a_wrong_or_missing_key_is_a_typed_error() {
    byte[] sealed = new RecordCodec(StoreEncryption.aes256Gcm(KEY_A)).encode(full);
    assertThatThrownBy(() -> new RecordCodec(StoreEncryption.aes256Gcm(KEY_B)).decode(sealed, "s"))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("another encryption key");
    assertThatThrownBy(() -> new RecordCodec().decode(sealed, "s"))
        .isInstanceOf(StoreEncryptionException.class)
        .hasMessageContaining("without StoreEncryption");
  }

  @Test
  void encrypted_bytes_hold_no_key_body_or_response_in_clear() {
    IntentRecord record = full.toBuilder().businessId("order-77").build();
    String bytes = new String(new RecordCodec(StoreEncryption.aes256Gcm(KEY_A)).encode(record),
        StandardCharsets.ISO_8859_1);
    assertThat(bytes)
        .doesNotContain("secret-key-1")
        .doesNotContain("checked with the provider")
        .doesNotContain("traceparent")
        .doesNotContain("\"amount\"")
        .doesNotContain("\"status\"")
        .doesNotContain(full.fingerprint())
        .contains("tenant")
        .contains("order-77");
  }

  @Test
  void lookup_key_separates_scope_operation_and_key() {
    assertThat(RecordCodec.lookupKey(IntentId.of("ab", "c", "k")))
        .hasSize(32)
        .isNotEqualTo(RecordCodec.lookupKey(IntentId.of("a", "bc", "k")))
        .isEqualTo(RecordCodec.lookupKey(IntentId.of("ab", "c", "k")));
  }

  @Test
  void lookup_key_is_a_persisted_format() {
    // Stores index records by these bytes: values computed by the first implementation.
    assertThat(HexFormat.of().formatHex(RecordCodec.lookupKey(IntentId.of("ab", "c", "k"))))
        .isEqualTo("ab424e25870df1227c2468172cd54e04e6e3a4c3653804d448d143e16b646a77");
    assertThat(HexFormat.of().formatHex(
        RecordCodec.lookupKey(IntentId.of("p\u00e4y", "create-payment", "k-1"))))
        .isEqualTo("88864f3ec8525e87da83acc69a7be60b16c08a78702eb5b9c37ae77eedfb0c36");
  }

  @Test
  void one_lookup_keys_instance_hashes_each_id_from_a_clean_state() {
    RecordCodec.LookupKeys keys = new RecordCodec.LookupKeys();
    IntentId a = IntentId.of("ab", "c", "k");
    IntentId b = IntentId.of("p\u00e4y", "create-payment", "k-1");
    assertThat(keys.of(a)).isEqualTo(RecordCodec.lookupKey(a));
    assertThat(keys.of(b)).isEqualTo(RecordCodec.lookupKey(b));
    assertThat(keys.of(a)).isEqualTo(RecordCodec.lookupKey(a));
  }

  @Test
  void lookup_keys_computed_concurrently_agree() throws Exception {
    IntentId id = IntentId.of("scope", "op", "key-42");
    byte[] expected = RecordCodec.lookupKey(id);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<byte[]>> keys = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        keys.add(pool.submit(() -> RecordCodec.lookupKey(id)));
      }
      for (Future<byte[]> key : keys) {
        assertThat(key.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void encryption_key_must_be_32_bytes() {
    assertThatThrownBy(() -> StoreEncryption.aes256Gcm(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("32 bytes, was 16");
  }
}
