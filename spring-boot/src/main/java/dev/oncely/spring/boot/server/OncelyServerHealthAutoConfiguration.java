package dev.oncely.spring.boot.server;

import dev.oncely.server.ReceiptStore;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code oncelyServer} health indicator ({@link OncelyServerHealthIndicator}) on the receipt
 * store of {@link OncelyServerAutoConfiguration}, when Actuator's health support ({@code
 * spring-boot-health}) is on the classpath and {@code management.health.oncely-server.enabled} is
 * not false. Its own auto-configuration, so an app without Actuator never loads a health type.
 */
@AutoConfiguration(after = OncelyServerAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.boot.health.contributor.HealthIndicator",
    "dev.oncely.server.ReceiptStore"})
@ConditionalOnBean(ReceiptStore.class)
@ConditionalOnEnabledHealthIndicator("oncely-server")
public class OncelyServerHealthAutoConfiguration {
  /** Creates the auto-configuration; Spring calls it. */
  public OncelyServerHealthAutoConfiguration() {}

  @Bean
  @ConditionalOnMissingBean(name = "oncelyServerHealthIndicator")
  OncelyServerHealthIndicator oncelyServerHealthIndicator(ReceiptStore receipts) {
    return new OncelyServerHealthIndicator(receipts, Clock.systemUTC());
  }
}
