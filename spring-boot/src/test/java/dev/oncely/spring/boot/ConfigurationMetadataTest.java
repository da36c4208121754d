package dev.oncely.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.webhook.WebhookReceiver;
import dev.oncely.spring.boot.server.OncelyServerProperties;
import dev.oncely.spring.boot.webhooks.OncelyWebhooksProperties;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The IDE metadata the configuration processor wrote (merged with the hand-written defaults of
 * properties whose default is a library constant) states the defaults {@link OncelyProperties},
 * {@link OncelyServerProperties} and {@link OncelyWebhooksProperties} really have, so it cannot
 * drift from {@code RetryPolicy}, {@code RetryBudget}, {@code Inbox} and {@code WebhookReceiver},
 * and covers every {@code oncely.server.*} and {@code oncely.webhooks.*} property.
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
    OncelyServerProperties server = new OncelyServerProperties();
    // Unset means "computed at start-up" (from the DataSource, the dialect, Spring Security's
    // order, the process) or, for the route map, empty.
    Set<String> noDefault = Set.of("oncely.store.engine", "oncely.key-retention",
        "oncely.server.endpoints", "oncely.server.filter-order", "oncely.server.instance",
        "oncely.webhooks.enabled", "oncely.webhooks.instance", "oncely.webhooks.sources");

    assertThat(properties.values()).allSatisfy(p -> assertThat(p.has("description")).isTrue());
    assertThat(properties.values()).filteredOn(p -> !noDefault.contains(p.get("name").asString()))
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

    assertThat(properties.keySet()).filteredOn(name -> name.startsWith("oncely.server."))
        .containsExactlyInAnyOrder("oncely.server.enabled", "oncely.server.dialect",
            "oncely.server.scope", "oncely.server.status-path", "oncely.server.instance",
            "oncely.server.filter-order", "oncely.server.endpoints",
            "oncely.server.store.engine", "oncely.server.store.path",
            "oncely.server.store.schema", "oncely.server.store.migrate",
            "oncely.server.purge.enabled", "oncely.server.purge.interval",
            "oncely.server.purge.step");
    assertThat(properties.get("oncely.server.enabled").get("defaultValue").asBoolean())
        .isEqualTo(server.isEnabled()).isFalse();
    assertThat(properties.get("oncely.server.dialect").get("defaultValue").asString())
        .isEqualToIgnoringCase(server.getDialect().name());
    assertThat(properties.get("oncely.server.scope").get("defaultValue").asString())
        .isEqualTo(server.getScope());
    assertThat(properties.get("oncely.server.status-path").get("defaultValue").asString())
        .isEqualTo(server.getStatusPath());
    assertThat(properties.get("oncely.server.store.engine").get("defaultValue").asString())
        .isEqualToIgnoringCase(server.getStore().getEngine().name());
    assertThat(properties.get("oncely.server.store.path").get("defaultValue").asString())
        .isEqualTo(server.getStore().getPath().toString());
    assertThat(properties.get("oncely.server.store.schema").get("defaultValue").asString())
        .isEqualTo(server.getStore().getSchema());
    assertThat(duration(properties, "oncely.server.purge.interval"))
        .isEqualTo(server.getPurge().getInterval());
    assertThat(duration(properties, "oncely.server.purge.step"))
        .isEqualTo(server.getPurge().getStep());
  }

  @Test
  void every_webhooks_property_is_described_with_the_default_it_really_has() throws Exception {
    Map<String, JsonNode> properties = new HashMap<>();
    try (InputStream in = getClass().getResourceAsStream(
        "/META-INF/spring-configuration-metadata.json")) {
      for (JsonNode property : JsonMapper.builder().build().readTree(in).get("properties")) {
        properties.put(property.get("name").asString(), property);
      }
    }
    OncelyWebhooksProperties webhooks = new OncelyWebhooksProperties();

    assertThat(properties.keySet()).filteredOn(name -> name.startsWith("oncely.webhooks."))
        .containsExactlyInAnyOrder("oncely.webhooks.enabled", "oncely.webhooks.path",
            "oncely.webhooks.workers", "oncely.webhooks.lease", "oncely.webhooks.max-failures",
            "oncely.webhooks.poll-interval", "oncely.webhooks.retention",
            "oncely.webhooks.max-body-bytes", "oncely.webhooks.instance",
            "oncely.webhooks.backoff.first", "oncely.webhooks.backoff.max",
            "oncely.webhooks.store.engine", "oncely.webhooks.store.path",
            "oncely.webhooks.store.schema", "oncely.webhooks.store.migrate",
            "oncely.webhooks.purge.enabled", "oncely.webhooks.purge.interval",
            "oncely.webhooks.purge.step", "oncely.webhooks.sources");
    assertThat(properties.get("oncely.webhooks.path").get("defaultValue").asString())
        .isEqualTo(webhooks.getPath());
    assertThat(properties.get("oncely.webhooks.workers").get("defaultValue").asInt())
        .isEqualTo(webhooks.getWorkers());
    assertThat(duration(properties, "oncely.webhooks.lease")).isEqualTo(webhooks.getLease());
    assertThat(properties.get("oncely.webhooks.max-failures").get("defaultValue").asInt())
        .isEqualTo(webhooks.getMaxFailures()).isEqualTo(Inbox.DEFAULT_MAX_FAILURES);
    assertThat(duration(properties, "oncely.webhooks.poll-interval"))
        .isEqualTo(webhooks.getPollInterval());
    assertThat(duration(properties, "oncely.webhooks.retention"))
        .isEqualTo(webhooks.getRetention()).isEqualTo(Inbox.DEFAULT_RETENTION);
    assertThat(properties.get("oncely.webhooks.max-body-bytes").get("defaultValue").asInt())
        .isEqualTo(webhooks.getMaxBodyBytes())
        .isEqualTo(WebhookReceiver.DEFAULT_MAX_BODY_BYTES);
    assertThat(duration(properties, "oncely.webhooks.backoff.first"))
        .isEqualTo(webhooks.getBackoff().getFirst());
    assertThat(duration(properties, "oncely.webhooks.backoff.max"))
        .isEqualTo(webhooks.getBackoff().getMax());
    assertThat(properties.get("oncely.webhooks.store.engine").get("defaultValue").asString())
        .isEqualToIgnoringCase(webhooks.getStore().getEngine().name());
    assertThat(properties.get("oncely.webhooks.store.path").get("defaultValue").asString())
        .isEqualTo(webhooks.getStore().getPath().toString());
    assertThat(properties.get("oncely.webhooks.store.schema").get("defaultValue").asString())
        .isEqualTo(webhooks.getStore().getSchema());
    assertThat(properties.get("oncely.webhooks.store.migrate").get("defaultValue").asBoolean())
        .isEqualTo(webhooks.getStore().isMigrate());
    assertThat(properties.get("oncely.webhooks.purge.enabled").get("defaultValue").asBoolean())
        .isEqualTo(webhooks.getPurge().isEnabled());
    assertThat(duration(properties, "oncely.webhooks.purge.interval"))
        .isEqualTo(webhooks.getPurge().getInterval());
    assertThat(duration(properties, "oncely.webhooks.purge.step"))
        .isEqualTo(webhooks.getPurge().getStep());
    assertThat(properties.get("oncely.webhooks.sources").get("description").asString())
        .contains("scheme, secrets, tolerance and retention");
  }

  private static Duration duration(Map<String, JsonNode> properties, String name) {
    return DurationStyle.detectAndParse(properties.get(name).get("defaultValue").asString());
  }
}
