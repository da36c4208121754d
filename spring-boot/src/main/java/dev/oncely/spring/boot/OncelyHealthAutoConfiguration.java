package dev.oncely.spring.boot;

import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.IntentStore;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code oncely} health indicator ({@link OncelyHealthIndicator}) on the starter's (or the
 * app's) {@link IntentStore} and, when there is one, its {@link DueWorkScheduler}, when Actuator's
 * health support ({@code spring-boot-health}) is on the classpath and {@code
 * management.health.oncely.enabled} is not false. Its own auto-configuration, so an app without
 * Actuator never loads a health type.
 */
@AutoConfiguration(after = OncelyAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean({IntentStore.class, OncelyProperties.class})
@ConditionalOnEnabledHealthIndicator("oncely")
public class OncelyHealthAutoConfiguration {
  /** Creates the auto-configuration; Spring calls it. */
  public OncelyHealthAutoConfiguration() {}

  @Bean
  @ConditionalOnMissingBean(name = "oncelyHealthIndicator")
  OncelyHealthIndicator oncelyHealthIndicator(IntentStore store, OncelyProperties properties,
      ObjectProvider<DueWorkScheduler> dueWork) {
    OncelyProperties.Health health = properties.getHealth();
    if (health.getMaxNeedsReconciliation() < 0) {
      throw new OncelyPropertyException("oncely.health.max-needs-reconciliation",
          health.getMaxNeedsReconciliation(), "must be >= 0, was "
          + health.getMaxNeedsReconciliation(), null);
    }
    if (health.getMaxPendingAge().isNegative() || health.getMaxPendingAge().isZero()) {
      throw new OncelyPropertyException("oncely.health.max-pending-age",
          health.getMaxPendingAge(), "must be positive, was " + health.getMaxPendingAge(), null);
    }
    return new OncelyHealthIndicator(store, dueWork.getIfUnique(),
        health.getMaxNeedsReconciliation(), health.getMaxPendingAge(), Clock.systemUTC());
  }
}
