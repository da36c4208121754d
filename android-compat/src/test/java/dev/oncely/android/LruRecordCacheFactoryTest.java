package dev.oncely.android;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.RecordCache;
import dev.oncely.client.StoredResponse;
import dev.oncely.client.spi.IntentStoreContract;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

/** Plain JUnit: the factory needs no Android framework class. */
public class LruRecordCacheFactoryTest {
  private final RecordCache.Factory factory = new LruRecordCacheFactory();

  @Test
  public void full_cache_evicts_the_least_recently_used_entry() {
    RecordCache<String, String> cache = factory.create(2);
    cache.put("a", "1");
    cache.put("b", "2");
    assertThat(cache.getIfPresent("a")).isEqualTo("1");
    cache.put("c", "3");
    assertThat(cache.getIfPresent("b")).isNull();
    assertThat(cache.getIfPresent("a")).isEqualTo("1");
    assertThat(cache.getIfPresent("c")).isEqualTo("3");
  }

  @Test
  public void loader_runs_only_on_a_miss_and_a_null_load_is_not_cached() {
    RecordCache<String, String> cache = factory.create(10);
    AtomicInteger loads = new AtomicInteger();
    assertThat(cache.get("k", k -> {
      loads.incrementAndGet();
      return "v";
    })).isEqualTo("v");
    assertThat(cache.get("k", k -> "other")).isEqualTo("v");
    assertThat(loads).hasValue(1);
    assertThat(cache.get("none", k -> null)).isNull();
    assertThat(cache.getIfPresent("none")).isNull();
  }

  @Test
  public void invalidation_removes_entries() {
    RecordCache<String, String> cache = factory.create(10);
    cache.put("a", "1");
    cache.put("b", "2");
    cache.invalidate("a");
    assertThat(cache.getIfPresent("a")).isNull();
    cache.invalidateAll();
    assertThat(cache.getIfPresent("b")).isNull();
  }

  @Test
  public void size_zero_keeps_nothing_and_a_negative_size_is_refused() {
    RecordCache<String, String> cache = factory.create(0);
    cache.put("a", "1");
    assertThat(cache.getIfPresent("a")).isNull();
    assertThat(cache.get("a", k -> "loaded")).isEqualTo("loaded");
    assertThatThrownBy(() -> factory.create(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maximumSize")
        .hasMessageContaining("-1");
  }

  /** A finished record with a {@code body}-byte request and a {@code response}-byte answer. */
  private static IntentRecord record(String key, int body, int response) {
    return IntentStoreContract.newRecord("s", "op", key).toBuilder()
        .body(new byte[body], "application/octet-stream")
        .state(IntentState.COMPLETED)
        .lastResponse(StoredResponse.of(200, Map.of(), new byte[response]))
        .build();
  }

  @Test
  public void records_are_weighed_by_request_and_response_body_bytes() {
    assertThat(LruRecordCacheFactory.weigh(record("k", 1000, 234)))
        .isEqualTo(1234 + LruRecordCacheFactory.ENTRY_OVERHEAD_BYTES);
    assertThat(LruRecordCacheFactory.weigh("not a record"))
        .isEqualTo(LruRecordCacheFactory.ENTRY_OVERHEAD_BYTES);
  }

  @Test
  public void the_byte_bound_evicts_least_recently_used_records_long_before_the_entry_bound() {
    int oneMiB = 1024 * 1024;
    RecordCache<IntentId, IntentRecord> cache =
        new LruRecordCacheFactory(3L * oneMiB).create(10_000);
    IntentRecord a = record("a", oneMiB - 1024, 0);
    IntentRecord b = record("b", oneMiB - 1024, 0);
    IntentRecord c = record("c", oneMiB - 1024, 0);
    cache.put(a.id(), a);
    cache.put(b.id(), b);
    cache.put(c.id(), c);
    assertThat(cache.getIfPresent(a.id())).isSameAs(a);

    IntentRecord d = record("d", 512 * 1024, 512 * 1024 - 1024);
    cache.put(d.id(), d);

    assertThat(cache.getIfPresent(b.id())).as("least recently used").isNull();
    assertThat(cache.getIfPresent(a.id())).isSameAs(a);
    assertThat(cache.getIfPresent(c.id())).isSameAs(c);
    assertThat(cache.getIfPresent(d.id())).isSameAs(d);
  }

  @Test
  public void a_record_heavier_than_the_byte_bound_is_not_cached_and_evicts_nothing() {
    RecordCache<IntentId, IntentRecord> cache = new LruRecordCacheFactory(4096).create(100);
    IntentRecord small = record("small", 10, 10);
    IntentRecord huge = record("huge", 8192, 0);
    cache.put(small.id(), small);
    cache.put(huge.id(), huge);

    assertThat(cache.getIfPresent(huge.id())).isNull();
    assertThat(cache.getIfPresent(small.id())).isSameAs(small);
  }

  @Test
  public void replacing_and_invalidating_give_their_bytes_back() {
    RecordCache<IntentId, IntentRecord> cache = new LruRecordCacheFactory(
        2 * (1000 + LruRecordCacheFactory.ENTRY_OVERHEAD_BYTES)).create(100);
    IntentRecord a = record("a", 1000, 0);
    IntentRecord b = record("b", 1000, 0);
    cache.put(a.id(), a);
    cache.put(a.id(), a);
    cache.put(b.id(), b);
    assertThat(cache.getIfPresent(a.id())).isSameAs(a);
    cache.invalidate(a.id());
    IntentRecord c = record("c", 1000, 0);
    cache.put(c.id(), c);

    assertThat(cache.getIfPresent(b.id())).isSameAs(b);
    assertThat(cache.getIfPresent(c.id())).isSameAs(c);
  }

  @Test
  public void a_negative_byte_bound_is_refused() {
    assertThatThrownBy(() -> new LruRecordCacheFactory(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBytesPerCache");
  }
}
