package dev.oncely.android;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.oncely.client.spi.RecordCache;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;

@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35, manifest = Config.NONE)
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
}
