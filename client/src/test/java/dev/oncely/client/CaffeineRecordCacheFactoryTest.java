package dev.oncely.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CaffeineRecordCacheFactoryTest {

  @Test
  void cache_keeps_loads_and_forgets_values() {
    RecordCache<String, String> cache = new CaffeineRecordCacheFactory().create(100);

    cache.put("a", "1");
    assertThat(cache.getIfPresent("a")).isEqualTo("1");
    assertThat(cache.get("b", k -> "2")).isEqualTo("2");
    assertThat(cache.getIfPresent("b")).isEqualTo("2");
    cache.invalidate("a");
    assertThat(cache.getIfPresent("a")).isNull();
    cache.invalidateAll();
    assertThat(cache.getIfPresent("b")).isNull();
  }

  @Test
  void negative_size_is_refused() {
    assertThatThrownBy(() -> new CaffeineRecordCacheFactory().create(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maximumSize");
  }
}
