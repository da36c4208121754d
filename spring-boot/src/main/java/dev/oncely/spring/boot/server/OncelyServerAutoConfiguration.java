package dev.oncely.spring.boot.server;

import dev.oncely.micrometer.OncelyServerMetrics;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.ReceiptListener;
import dev.oncely.server.ReceiptRecovery;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.ScopeResolver;
import dev.oncely.server.servlet.EndpointRoutes;
import dev.oncely.spring.boot.OncelyAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Serves idempotent endpoints in a servlet web application (see {@code docs/spring.md},
 * "Idempotent endpoints"), when {@code oncely-server} and the Servlet API are on the classpath and
 * {@code oncely.server.enabled=true} (off by default: a client-only application sees no change;
 * {@code oncely.enabled=false} turns it off with the rest):
 *
 * <ul>
 *   <li>a {@link ReceiptStore} of its own ({@code oncely.server.store.*}: MapDB by default,
 *       SQLite, PostgreSQL or memory), never the client's intent store; closed with the context;
 *   <li>a {@link ScopeResolver} from {@code oncely.server.scope} and the {@link
 *       IdempotentEndpoints} ({@code oncely.server.dialect}, {@code status-path}, {@code
 *       instance}) with the app's {@link ReceiptRecovery} bean if it has one and every {@link
 *       ReceiptListener} bean (the Micrometer metrics when a {@code MeterRegistry} exists);
 *   <li>the idempotency filter, registered after Spring Security's filter chain so the principal
 *       is known, serving the routes read from the {@link IdempotentEndpoint} methods and the
 *       {@code oncely.server.endpoints} properties once the handler mappings are ready (an {@link
 *       EndpointRoutes} bean of the app's replaces both);
 *   <li>a {@link TransactionalRecoveryPoint}, {@code HandlerContext} as a handler method
 *       argument, and a {@link ReceiptPurge} of finished receipts past their retention ({@code
 *       oncely.server.purge.*}).
 * </ul>
 *
 * <p>Every bean but the filter's plumbing is {@link ConditionalOnMissingBean}: an app's own bean
 * of the type replaces the starter's. {@link OncelyServerHealthAutoConfiguration} adds the health
 * indicator.
 */
@AutoConfiguration(after = OncelyAutoConfiguration.class, afterName = {
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple"
        + ".SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(name = {"dev.oncely.server.IdempotentEndpoints", "jakarta.servlet.Filter"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty(name = "oncely.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "oncely.server.enabled")
@EnableConfigurationProperties(OncelyServerProperties.class)
// In this order: the PostgreSQL receipt store, when it applies, is there before the file store's.
@Import({PostgresReceiptStoreConfiguration.class, FileReceiptStoreConfiguration.class})
public class OncelyServerAutoConfiguration {
  /**
   * The filter's order without {@code oncely.server.filter-order}: this much after Spring
   * Security's filter chain ({@code spring.security.filter.order}).
   */
  static final int AFTER_SECURITY = 10;
  /**
   * Spring Security's default filter order in Boot ({@code
   * SecurityFilterProperties.DEFAULT_FILTER_ORDER}, {@code
   * OrderedFilter.REQUEST_WRAPPER_FILTER_MAX_ORDER - 100}).
   */
  static final int SECURITY_DEFAULT_ORDER = -100;

  /** Creates the auto-configuration; Spring calls it. */
  public OncelyServerAutoConfiguration() {}

  @Bean
  @ConditionalOnMissingBean
  ScopeResolver oncelyScopeResolver(OncelyServerProperties properties) {
    return ServerSettings.scopeResolver(properties.getScope());
  }

  @Bean
  @ConditionalOnMissingBean
  IdempotentEndpoints oncelyIdempotentEndpoints(ReceiptStore receipts, ScopeResolver scopes,
      ObjectProvider<ReceiptRecovery> recovery, ObjectProvider<ReceiptListener> listeners,
      OncelyServerProperties properties) {
    IdempotentEndpoints.Builder endpoints = IdempotentEndpoints.builder(receipts)
        .scopeResolver(scopes);
    ServerSettings.configure(endpoints, properties);
    recovery.ifUnique(endpoints::recovery);
    List<ReceiptListener> all = listeners.orderedStream().toList();
    if (!all.isEmpty()) {
      endpoints.listener(all.size() == 1 ? all.get(0) : new CompositeReceiptListener(all));
    }
    return endpoints.build();
  }

  @Bean
  DeferredIdempotencyFilter oncelyDeferredIdempotencyFilter() {
    return new DeferredIdempotencyFilter();
  }

  /**
   * The route table, read once the handler mappings are ready; it hands the filter its routes.
   */
  @Bean
  EndpointRouteTable oncelyEndpointRouteTable(ListableBeanFactory beans,
      Environment environment, OncelyServerProperties properties,
      IdempotentEndpoints endpoints, ObjectProvider<EndpointRoutes> appRoutes,
      DeferredIdempotencyFilter filter) {
    return new EndpointRouteTable(beans, environment, properties, endpoints,
        appRoutes.getIfUnique(), filter);
  }

  /**
   * The filter on every request path, for requests only (not error, forward or async
   * dispatches), ordered after Spring Security's filter chain unless {@code
   * oncely.server.filter-order} says otherwise.
   */
  @Bean
  FilterRegistrationBean<DeferredIdempotencyFilter> oncelyIdempotencyFilter(
      DeferredIdempotencyFilter filter, OncelyServerProperties properties,
      Environment environment) {
    FilterRegistrationBean<DeferredIdempotencyFilter> registration =
        new FilterRegistrationBean<>(filter);
    registration.setName("oncelyIdempotencyFilter");
    registration.addUrlPatterns("/*");
    registration.setDispatcherTypes(DispatcherType.REQUEST);
    Integer order = properties.getFilterOrder();
    registration.setOrder(order != null ? order : environment.getProperty(
        "spring.security.filter.order", Integer.class, SECURITY_DEFAULT_ORDER) + AFTER_SECURITY);
    return registration;
  }

  /** The purge of finished receipts, while the context runs. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "oncely.server.purge.enabled", matchIfMissing = true)
  ReceiptPurge oncelyReceiptPurge(ReceiptStore receipts, OncelyServerProperties properties) {
    OncelyServerProperties.Purge purge = properties.getPurge();
    ServerSettings.set("oncely.server.purge.interval", "interval", purge.getInterval(),
        value -> positive("interval", value));
    ServerSettings.set("oncely.server.purge.step", "step", purge.getStep(),
        value -> positive("step", value));
    return new ReceiptPurge(receipts, purge.getInterval(), purge.getStep(), Clock.systemUTC());
  }

  private static Duration positive(String what, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + value);
    }
    return value;
  }

  /**
   * The recovery point, writing in the app's transactions when the receipts are the starter's
   * PostgreSQL store on the transaction's DataSource.
   */
  @Bean
  @ConditionalOnMissingBean
  TransactionalRecoveryPoint oncelyRecoveryPoint(ReceiptStore receipts,
      ObjectProvider<ReceiptTransactions> transactions) {
    ReceiptTransactions t = transactions.getIfUnique();
    return new TransactionalRecoveryPoint(t == null ? null : t.writeFor(receipts));
  }

  /** A handler method of an idempotent endpoint may take its {@code HandlerContext}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.web.servlet.config.annotation.WebMvcConfigurer")
  static class MvcConfiguration {
    @Bean
    WebMvcConfigurer oncelyHandlerContextArgument() {
      return new WebMvcConfigurer() {
        @Override
        public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
          resolvers.add(new HandlerContextArgumentResolver());
        }
      };
    }
  }

  /**
   * Receipt metrics ({@link OncelyServerMetrics}), when {@code oncely-micrometer} and a {@link
   * MeterRegistry} are present; the endpoints hear them as a {@link ReceiptListener} bean.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.micrometer.core.instrument.MeterRegistry",
      "dev.oncely.micrometer.OncelyServerMetrics"})
  @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
  static class MetricsConfiguration {
    @Bean
    @ConditionalOnMissingBean
    OncelyServerMetrics oncelyServerMetrics(MeterRegistry registry, ReceiptStore receipts) {
      return OncelyServerMetrics.builder(registry).receipts(receipts).build();
    }
  }
}
