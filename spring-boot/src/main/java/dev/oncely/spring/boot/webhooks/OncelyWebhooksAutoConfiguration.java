package dev.oncely.spring.boot.webhooks;

import dev.oncely.micrometer.OncelyInboxMetrics;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxHandler;
import dev.oncely.server.inbox.InboxListener;
import dev.oncely.server.webhook.WebhookListener;
import dev.oncely.server.webhook.WebhookReceiver;
import dev.oncely.spring.boot.OncelyAutoConfiguration;
import dev.oncely.spring.boot.OncelyPropertyException;
import dev.oncely.spring.boot.internal.PropertySettings;
import dev.oncely.spring.boot.server.OncelyServerAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Receives webhooks into a durable inbox and hands them to the application's {@link
 * WebhookHandler}s (see {@code docs/spring.md}, "Webhooks"), when {@code oncely-server} is on the
 * classpath and {@code oncely.webhooks.sources} names a source (or {@code
 * oncely.webhooks.enabled=true}; {@code false} turns it off, and {@code oncely.enabled=false} with
 * the rest):
 *
 * <ul>
 *   <li>an {@link OncelyInboxStore} of its own ({@code oncely.webhooks.store.*}: MapDB by default,
 *       SQLite, PostgreSQL or memory), never the client's intent store or the receipts';
 *   <li>the {@link Inbox} ({@code workers}, {@code lease}, {@code max-failures}, {@code
 *       backoff.*}, {@code retention} and each source's, {@code instance}), with one {@link
 *       InboxHandler} per source that has a {@link WebhookHandler} (dispatching by the message's
 *       type), every {@link InboxListener} bean, and its workers started once the context has
 *       refreshed and stopped with it;
 *   <li>a {@link WebhookReceiver} verifying each source's deliveries with its scheme and secrets,
 *       with every {@link WebhookListener} bean, served under {@code oncely.webhooks.path} by a
 *       servlet in a servlet web application ({@code POST <path>/<source>});
 *   <li>an {@link InboxPurge} of handled messages past their retention ({@code
 *       oncely.webhooks.purge.*}) and, with a {@code MeterRegistry}, {@link OncelyInboxMetrics}.
 * </ul>
 *
 * <p>Every bean but the servlet's registration is {@link ConditionalOnMissingBean}: an app's own
 * bean of the type replaces the starter's (an app's {@link Inbox} comes with its own handlers:
 * the {@link WebhookHandler}s are then not read). {@link OncelyWebhooksHealthAutoConfiguration}
 * adds the health indicator.
 */
@AutoConfiguration(after = {OncelyAutoConfiguration.class, OncelyServerAutoConfiguration.class},
    afterName = {"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure"
            + ".CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple"
            + ".SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(name = "dev.oncely.server.inbox.Inbox")
@ConditionalOnBooleanProperty(name = "oncely.enabled", matchIfMissing = true)
@Conditional(WebhooksCondition.class)
@EnableConfigurationProperties(OncelyWebhooksProperties.class)
// In this order: the PostgreSQL inbox store, when it applies, is there before the file store's.
@Import({PostgresInboxStoreConfiguration.class, FileInboxStoreConfiguration.class})
public class OncelyWebhooksAutoConfiguration {
  private static final Logger LOG = Logger.getLogger(OncelyWebhooksAutoConfiguration.class
      .getName());

  /** Creates the auto-configuration; Spring calls it. */
  public OncelyWebhooksAutoConfiguration() {}

  /**
   * The inbox on its own store, its workers deferred until the context has refreshed. Reads the
   * {@link WebhookHandler}s from the bean definitions (the beans are resolved on their first
   * message), so a handler may itself depend on the inbox.
   */
  @Bean
  @ConditionalOnMissingBean
  Inbox oncelyInbox(OncelyInboxStore store, OncelyWebhooksProperties properties,
      ConfigurableListableBeanFactory beans, ObjectProvider<InboxListener> listeners) {
    Inbox.Builder inbox = Inbox.builder(store.intentStore()).deferStart();
    String p = "oncely.webhooks.";
    PropertySettings.set(p + "workers", "workers", properties.getWorkers(), inbox::workers);
    PropertySettings.set(p + "lease", "lease", properties.getLease(), inbox::lease);
    PropertySettings.set(p + "max-failures", "maxFailures", properties.getMaxFailures(),
        inbox::maxFailures);
    OncelyWebhooksProperties.Backoff backoff = properties.getBackoff();
    PropertySettings.set(p + "backoff.first", "first backoff", backoff.getFirst(),
        first -> inbox.backoff(first, first));
    if (backoff.getMax().compareTo(backoff.getFirst()) < 0) {
      throw new OncelyPropertyException(p + "backoff.max", backoff.getMax(), "must be at least "
          + p + "backoff.first (" + backoff.getFirst() + "), was " + backoff.getMax(), null);
    }
    inbox.backoff(backoff.getFirst(), backoff.getMax());
    PropertySettings.set(p + "poll-interval", "pollInterval", properties.getPollInterval(),
        inbox::pollInterval);
    PropertySettings.set(p + "retention", "retention", properties.getRetention(),
        inbox::retention);
    warnIfShort(p + "retention", properties.getRetention());
    if (properties.getInstance() != null) {
      PropertySettings.set(p + "instance", "instance", properties.getInstance(),
          inbox::instance);
    }
    properties.getSources().forEach((name, source) -> {
      if (source.getRetention() != null) {
        String property = WebhookSources.prefix(name) + ".retention";
        PropertySettings.set(property, "retention", source.getRetention(),
            retention -> inbox.retention(name, retention));
        warnIfShort(property, source.getRetention());
      }
    });
    Map<String, InboxHandler> handlers = WebhookHandlerTable.read(beans,
        properties.getSources().keySet()).handlers();
    handlers.forEach(inbox::handler);
    if (properties.getWorkers() > 0) {
      for (String source : properties.getSources().keySet()) {
        if (!handlers.containsKey(source)) {
          LOG.warning(() -> "webhook source " + source + " has no @WebhookHandler: its"
              + " deliveries are verified, stored and acknowledged, and stay queued until a"
              + " handler is added");
        }
      }
    }
    List<InboxListener> all = listeners.orderedStream().toList();
    if (!all.isEmpty()) {
      inbox.listener(Listeners.inbox(all));
    }
    return inbox.build();
  }

  private static void warnIfShort(String property, Duration retention) {
    if (retention.compareTo(Inbox.DEFAULT_RETENTION) < 0) {
      LOG.warning(() -> property + " is " + retention + ", shorter than the "
          + Inbox.DEFAULT_RETENTION.toDays() + " days Stripe and Standard Webhooks senders"
          + " retry: a redelivery after it is handled again");
    }
  }

  /** Starts the inbox's workers once every handler bean exists; stops them with the context. */
  @Bean
  InboxWorkersLifecycle oncelyInboxWorkers(Inbox inbox) {
    return new InboxWorkersLifecycle(inbox);
  }

  /** The purge of handled messages, while the context runs. */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBooleanProperty(name = "oncely.webhooks.purge.enabled", matchIfMissing = true)
  InboxPurge oncelyInboxPurge(Inbox inbox, OncelyWebhooksProperties properties) {
    OncelyWebhooksProperties.Purge purge = properties.getPurge();
    PropertySettings.set("oncely.webhooks.purge.interval", "interval", purge.getInterval(),
        value -> positive("interval", value));
    PropertySettings.set("oncely.webhooks.purge.step", "step", purge.getStep(),
        value -> positive("step", value));
    return new InboxPurge(inbox, purge.getInterval(), purge.getStep(), Clock.systemUTC());
  }

  private static void positive(String what, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + value);
    }
  }

  /** The receiver and its servlet, when a source is configured. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(WebhooksCondition.Sources.class)
  static class ReceiverConfiguration {
    @Bean
    @ConditionalOnMissingBean
    WebhookReceiver oncelyWebhookReceiver(Inbox inbox, OncelyWebhooksProperties properties,
        ObjectProvider<WebhookListener> listeners) {
      WebhookReceiver.Builder receiver = WebhookReceiver.builder(inbox);
      WebhookSources.verifiers(properties).forEach((name, verifier) ->
          PropertySettings.set(WebhookSources.prefix(name), "source", name,
              n -> receiver.source(n, verifier)));
      PropertySettings.set("oncely.webhooks.max-body-bytes", "maxBodyBytes",
          properties.getMaxBodyBytes(), receiver::maxBodyBytes);
      List<WebhookListener> all = listeners.orderedStream().toList();
      if (!all.isEmpty()) {
        receiver.listener(Listeners.webhook(all));
      }
      return receiver.build();
    }

    /** {@code POST <oncely.webhooks.path>/<source>} in a servlet web application. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "jakarta.servlet.Servlet")
    static class ServletConfiguration {
      @Bean
      ServletRegistrationBean<DeferredWebhookServlet> oncelyWebhookServlet(
          OncelyWebhooksProperties properties, ObjectProvider<WebhookReceiver> receiver) {
        ServletRegistrationBean<DeferredWebhookServlet> registration =
            new ServletRegistrationBean<>(new DeferredWebhookServlet(receiver),
                mapping(properties.getPath()));
        registration.setName("oncelyWebhookServlet");
        return registration;
      }

      /** The servlet mapping of {@code path}: {@code /webhooks} gives {@code /webhooks/*}. */
      static String mapping(String path) {
        String p = path.trim();
        if (!p.startsWith("/") || p.length() < 2 || p.endsWith("/") || p.contains("*")
            || p.contains("//") || p.contains("?") || p.contains("#") || p.contains(";")) {
          throw new OncelyPropertyException("oncely.webhooks.path", path, "must be a path such"
              + " as /webhooks: starting with /, not / alone, no trailing /, no wildcards", null);
        }
        return p + "/*";
      }
    }
  }

  /**
   * Inbox metrics ({@link OncelyInboxMetrics}), when {@code oncely-micrometer} and a {@link
   * MeterRegistry} are present: the inbox and the receiver hear them as listener beans, and their
   * gauges watch the inbox once every singleton exists.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.micrometer.core.instrument.MeterRegistry",
      "dev.oncely.micrometer.OncelyInboxMetrics"})
  @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
  static class MetricsConfiguration {
    @Bean
    @ConditionalOnMissingBean
    OncelyInboxMetrics oncelyInboxMetrics(MeterRegistry registry) {
      return OncelyInboxMetrics.builder(registry).build();
    }

    @Bean
    SmartInitializingSingleton oncelyInboxGauges(OncelyInboxMetrics metrics,
        ObjectProvider<Inbox> inbox) {
      return () -> inbox.ifUnique(metrics::watch);
    }
  }
}
