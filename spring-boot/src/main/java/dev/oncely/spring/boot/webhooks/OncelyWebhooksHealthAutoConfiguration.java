package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.inbox.Inbox;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code oncelyWebhooks} health indicator ({@link OncelyWebhooksHealthIndicator}) on the inbox
 * of {@link OncelyWebhooksAutoConfiguration}, when Actuator's health support ({@code
 * spring-boot-health}) is on the classpath and {@code management.health.oncely-webhooks.enabled}
 * is not false. Its own auto-configuration, so an app without Actuator never loads a health type.
 */
@AutoConfiguration(after = OncelyWebhooksAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.boot.health.contributor.HealthIndicator",
    "dev.oncely.server.inbox.Inbox"})
@ConditionalOnBean(Inbox.class)
@ConditionalOnEnabledHealthIndicator("oncely-webhooks")
public class OncelyWebhooksHealthAutoConfiguration {
  /** Creates the auto-configuration; Spring calls it. */
  public OncelyWebhooksHealthAutoConfiguration() {}

  @Bean
  @ConditionalOnMissingBean(name = "oncelyWebhooksHealthIndicator")
  OncelyWebhooksHealthIndicator oncelyWebhooksHealthIndicator(Inbox inbox) {
    return new OncelyWebhooksHealthIndicator(inbox, Clock.systemUTC());
  }
}
