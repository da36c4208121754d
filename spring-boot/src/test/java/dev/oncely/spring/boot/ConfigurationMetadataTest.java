package dev.oncely.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The IDE metadata the configuration processor wrote (merged with the hand-written defaults of
 * properties whose default is a library constant) states the defaults {@link OncelyProperties}
 * really has, so it cannot drift from {@code RetryPolicy} and {@code RetryBudget}.
 */
class ConfigurationMetadataTest {
  @Test
  void every_property_has_a_description_and_the_stated_defaults_are_the_real_ones()
      throws Exception {
    Map<String, JsonNode> properties = new HashMap<>();
    try (InputStream in = getClass().getResourceAsStream(
        "/META-INF/spring-configuration-metadata.json")) {
      for (JsonNode property : JsonMapper.builder().build().readTree(in).get("properties")) {
        properties.put(property.get("name").asString(), property);
      }
    }
    OncelyProperties defaults = new OncelyProperties();

    assertThat(properties.values()).allSatisfy(p -> assertThat(p.has("description")).isTrue());
    assertThat(properties.values()).filteredOn(p -> !p.get("name").asString().equals(
        "oncely.store.engine") && !p.get("name").asString().equals("oncely.key-retention"))
        .allSatisfy(p -> assertThat(p.has("defaultValue")).as(p.get("name").asString()).isTrue());
    assertThat(properties.get("oncely.retry.max-attempts").get("defaultValue").asInt())
        .isEqualTo(defaults.getRetry().getMaxAttempts());
    assertThat(duration(properties, "oncely.retry.base-delay"))
        .isEqualTo(defaults.getRetry().getBaseDelay());
    assertThat(duration(properties, "oncely.retry.max-delay"))
        .isEqualTo(defaults.getRetry().getMaxDelay());
    assertThat(duration(properties, "oncely.retry.deadline"))
        .isEqualTo(defaults.getRetry().getDeadline());
    assertThat(duration(properties, "oncely.retry.attempt-timeout"))
        .isEqualTo(defaults.getRetry().getAttemptTimeout());
    assertThat(properties.get("oncely.budget.capacity").get("defaultValue").asInt())
        .isEqualTo(defaults.getBudget().getCapacity());
    assertThat(properties.get("oncely.budget.retry-cost").get("defaultValue").asInt())
        .isEqualTo(defaults.getBudget().getRetryCost());
    assertThat(properties.get("oncely.budget.success-refund").get("defaultValue").asInt())
        .isEqualTo(defaults.getBudget().getSuccessRefund());
    assertThat(properties.get("oncely.budget.refill-per-second").get("defaultValue").asDouble())
        .isEqualTo(defaults.getBudget().getRefillPerSecond());
    assertThat(properties.get("oncely.store.path").get("defaultValue").asString())
        .isEqualTo(defaults.getStore().getPath().toString());
  }

  private static Duration duration(Map<String, JsonNode> properties, String name) {
    return DurationStyle.detectAndParse(properties.get(name).get("defaultValue").asString());
  }
}
