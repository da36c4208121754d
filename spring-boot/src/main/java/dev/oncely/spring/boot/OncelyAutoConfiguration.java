package dev.oncely.spring.boot;

import dev.oncely.client.DueWorkScheduler;
import dev.oncely.client.HeaderProvider;
import dev.oncely.client.IdempotencyInterceptor;
import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentStore;
import dev.oncely.client.RetryBudget;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.dialect.Dialect;
import dev.oncely.client.dialect.Dialects;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.event.LoggingListener;
import dev.oncely.micrometer.IntentStoreGauges;
import dev.oncely.micrometer.OncelyMetrics;
import dev.oncely.spring.web.OncelyClientHttpRequestFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import javax.sql.DataSource;
import okhttp3.OkHttpClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Configures Oncely in a Spring Boot application (see {@code docs/spring.md}): the {@link
 * IntentStore} (PostgreSQL on the app's {@link DataSource} when {@code oncely-client-postgres} is
 * present, else a MapDB file; closed when the context closes), an {@link IdempotentClient}, an
 * {@link IdempotencyInterceptor} and an {@link OncelyClientHttpRequestFactory} for {@code
 * RestClient}, all on that store; a {@link DueWorkScheduler} run as a lifecycle bean and a resume
 * of unfinished intents once the application is ready, both through the request factory's OkHttp
 * client; Micrometer metrics when a {@link
 * MeterRegistry} is. {@link OncelyHealthAutoConfiguration} adds the health indicator.
 *
 * <p>Every bean is {@link ConditionalOnMissingBean}: an app's own bean of the type replaces the
 * starter's, and the others are built on it. {@code oncely.enabled=false} turns all of it off.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple"
        + ".SimpleMetricsExportAutoConfiguration"})
@ConditionalOnProperty(prefix = "oncely", name = "enabled", havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(OncelyProperties.class)
// In this order: the PostgreSQL store, when it applies, is there before the file store's check.
@Import({PostgresStoreConfiguration.class, FileStoreConfiguration.class})
public class OncelyAutoConfiguration {
  /** Creates the auto-configuration; Spring calls it. */
  public OncelyAutoConfiguration() {}

  @Bean
  @ConditionalOnMissingBean
  Dialect oncelyDialect(OncelyProperties properties) {
    return switch (properties.getDialect()) {
      case IETF -> Dialects.ietf();
      case STRIPE -> Dialects.stripe();
      case PAYPAL -> Dialects.paypal();
    };
  }

  @Bean
  @ConditionalOnMissingBean
  RetryPolicy oncelyRetryPolicy(OncelyProperties properties) {
    OncelyProperties.Retry retry = properties.getRetry();
    RetryPolicy.Builder policy = RetryPolicy.builder();
    FromProperties.set("oncely.retry.max-attempts", "maxAttempts", retry.getMaxAttempts(),
        policy::maxAttempts);
    FromProperties.set("oncely.retry.base-delay", "baseDelay", retry.getBaseDelay(),
        policy::baseDelay);
    FromProperties.set("oncely.retry.max-delay", "maxDelay", retry.getMaxDelay(),
        policy::maxDelay);
    FromProperties.set("oncely.retry.deadline", "deadline", retry.getDeadline(),
        policy::deadline);
    FromProperties.set("oncely.retry.attempt-timeout", "attemptTimeout",
        retry.getAttemptTimeout(), policy::attemptTimeout);
    return FromProperties.build("oncely.retry.base-delay and oncely.retry.max-delay",
        policy::build);
  }

  @Bean
  @ConditionalOnMissingBean
  RetryBudget oncelyRetryBudget(OncelyProperties properties) {
    OncelyProperties.Budget budget = properties.getBudget();
    RetryBudget.Builder retryBudget = RetryBudget.builder();
    FromProperties.set("oncely.budget.capacity", "capacity", budget.getCapacity(),
        retryBudget::capacity);
    FromProperties.set("oncely.budget.retry-cost", "retryCost", budget.getRetryCost(),
        retryBudget::retryCost);
    FromProperties.set("oncely.budget.success-refund", "successRefund",
        budget.getSuccessRefund(), retryBudget::successRefund);
    FromProperties.set("oncely.budget.refill-per-second", "refillPerSecond",
        budget.getRefillPerSecond(), retryBudget::refillPerSecond);
    return FromProperties.build("oncely.budget.*", retryBudget::build);
  }

  @Bean
  @ConditionalOnMissingBean
  IdempotentClient oncelyIdempotentClient(IntentStore store, Dialect dialect,
      RetryPolicy retryPolicy, RetryBudget retryBudget, ObjectProvider<IntentListener> listeners,
      ObjectProvider<HeaderProvider> headerProvider, ObjectProvider<OkHttpClient> okHttpClient,
      OncelyProperties properties) {
    IdempotentClient.Builder client = IdempotentClient.builder()
        .store(store)
        .dialect(dialect)
        .retryPolicy(retryPolicy)
        .retryBudget(retryBudget)
        .keepFinishedRequests(properties.isKeepFinishedRequests())
        .listener(listener(listeners));
    headerProvider.ifAvailable(client::headerProvider);
    okHttpClient.ifAvailable(client::okHttpClient);
    if (properties.getKeyRetention() != null) {
      FromProperties.set("oncely.key-retention", "keyRetention", properties.getKeyRetention(),
          client::keyRetention);
    }
    return client.build();
  }

  @Bean
  @ConditionalOnMissingBean
  IdempotencyInterceptor oncelyIdempotencyInterceptor(IntentStore store, Dialect dialect,
      RetryPolicy retryPolicy, RetryBudget retryBudget, ObjectProvider<IntentListener> listeners,
      OncelyProperties properties) {
    IdempotencyInterceptor.Builder interceptor = IdempotencyInterceptor.builder()
        .store(store)
        .dialect(dialect)
        .retryPolicy(retryPolicy)
        .retryBudget(retryBudget)
        .keepFinishedRequests(properties.isKeepFinishedRequests())
        .listener(listener(listeners));
    if (properties.getKeyRetention() != null) {
      FromProperties.set("oncely.key-retention", "keyRetention", properties.getKeyRetention(),
          interceptor::keyRetention);
    }
    return interceptor.build();
  }

  @Bean
  @ConditionalOnMissingBean
  OncelyClientHttpRequestFactory oncelyClientHttpRequestFactory(
      IdempotencyInterceptor interceptor, ObjectProvider<OkHttpClient> okHttpClient) {
    OncelyClientHttpRequestFactory.Builder factory =
        OncelyClientHttpRequestFactory.builder(interceptor);
    okHttpClient.ifAvailable(factory::okHttpClient);
    return factory.build();
  }

  /**
   * Due work through the request factory's OkHttp client: the interceptor's single flight makes a
   * due intent wait for a {@code RestClient} call of the same intent in this process instead of
   * running beside it, and the app's OkHttp interceptors add credentials to every resumed call.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "oncely.due-work", name = "enabled", havingValue = "true",
      matchIfMissing = true)
  DueWorkScheduler oncelyDueWorkScheduler(OncelyClientHttpRequestFactory factory,
      OncelyProperties properties) {
    DueWorkScheduler.Builder scheduler =
        DueWorkScheduler.builder(factory.interceptor(), factory.okHttpClient())
            .outcomes(OutcomeCounts::logDueWork);
    FromProperties.set("oncely.due-work.interval", "interval",
        properties.getDueWork().getInterval(), scheduler::interval);
    return scheduler.build();
  }

  @Bean
  @ConditionalOnBean(DueWorkScheduler.class)
  @ConditionalOnMissingBean
  DueWorkLifecycle oncelyDueWorkLifecycle(DueWorkScheduler scheduler) {
    return new DueWorkLifecycle(scheduler);
  }

  @Bean
  @ConditionalOnProperty(prefix = "oncely", name = "resume-on-startup", havingValue = "true",
      matchIfMissing = true)
  @ConditionalOnMissingBean
  ResumeOnReady oncelyResumeOnReady(OncelyClientHttpRequestFactory factory) {
    return new ResumeOnReady(factory);
  }

  /**
   * The default listener's log lines, kept beside the app's listeners and the Micrometer bridge;
   * a {@link LoggingListener} bean of the app's replaces it.
   */
  @Bean
  @ConditionalOnMissingBean
  LoggingListener oncelyLoggingListener() {
    return LoggingListener.instance();
  }

  /** Every {@link IntentListener} bean (logging, Micrometer, the app's), in their order. */
  private static IntentListener listener(ObjectProvider<IntentListener> listeners) {
    List<IntentListener> all = listeners.orderedStream().toList();
    return all.size() == 1 ? all.get(0) : IntentListener.all(all.toArray(IntentListener[]::new));
  }

  /**
   * Micrometer metrics of the event stream and the store, when {@code oncely-micrometer} and a
   * {@link MeterRegistry} are present.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.micrometer.core.instrument.MeterRegistry",
      "dev.oncely.micrometer.OncelyMetrics"})
  @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
  static class MetricsConfiguration {
    @Bean
    @ConditionalOnMissingBean
    OncelyMetrics oncelyMetrics(MeterRegistry registry, Dialect dialect) {
      return OncelyMetrics.builder(registry).dialect(dialect).build();
    }

    /** A {@code MeterBinder}: Boot's metrics auto-configuration binds it to the registry. */
    @Bean
    @ConditionalOnMissingBean
    IntentStoreGauges oncelyIntentStoreGauges(IntentStore store) {
      return IntentStoreGauges.builder(store).build();
    }
  }
}
