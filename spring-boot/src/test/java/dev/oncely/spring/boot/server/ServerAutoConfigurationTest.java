package dev.oncely.spring.boot.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentStore;
import dev.oncely.client.spi.ForwardingIntentStore;
import dev.oncely.micrometer.OncelyServerMetrics;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.persistence.SqliteIntentStore;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.InboundRequest;
import dev.oncely.server.ReceiptListener;
import dev.oncely.server.ReceiptRecovery;
import dev.oncely.server.ReceiptStore;
import dev.oncely.server.RecoveryDecision;
import dev.oncely.server.ScopeResolver;
import dev.oncely.server.ServerAnswer;
import dev.oncely.server.ServerDialect;
import dev.oncely.spring.boot.OncelyAutoConfiguration;
import dev.oncely.spring.boot.OncelyPropertyException;
import dev.oncely.spring.boot.StarterFailureAnalyzers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.mock.env.MockEnvironment;

/**
 * The server half's wiring, each question in a real context ({@link WebApplicationContextRunner},
 * no web server): off unless {@code oncely.server.enabled}, only in servlet web apps with
 * {@code oncely-server}; a receipt store of its own; properties reach the endpoints; refused
 * values fail the start naming the property; the app's beans win.
 */
class ServerAutoConfigurationTest {
  @TempDir
  Path dir;

  /** The client in memory: its stores have tests of their own. */
  private WebApplicationContextRunner runner() {
    return new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class,
            OncelyServerAutoConfiguration.class))
        .withPropertyValues("oncely.store.engine=memory",
            "oncely.store.path=" + dir.resolve("intents.db"),
            "oncely.server.store.path=" + dir.resolve("receipts.db"),
            "oncely.due-work.enabled=false", "oncely.resume-on-startup=false");
  }

  /** Enabled, receipts in memory unless a test names the engine. */
  private WebApplicationContextRunner enabled() {
    return runner().withPropertyValues("oncely.server.enabled=true",
        "oncely.server.store.engine=memory");
  }

  private static InboundRequest request(String... headers) {
    InboundRequest.Builder b = InboundRequest.builder("POST", "/payments").principal("alice");
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return b.build();
  }

  @Test
  void without_oncely_server_enabled_a_web_app_gets_no_server_bean_and_its_client_is_unchanged() {
    runner().run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(IntentStore.class)
          .doesNotHaveBean(ReceiptStore.class)
          .doesNotHaveBean(IdempotentEndpoints.class)
          .doesNotHaveBean(ScopeResolver.class)
          .doesNotHaveBean(TransactionalRecoveryPoint.class)
          .doesNotHaveBean("oncelyIdempotencyFilter");
      assertThat(context.getBeansOfType(FilterRegistrationBean.class)).isEmpty();
      assertThat(Files.exists(dir.resolve("receipts.db"))).isFalse();
    });
  }

  @Test
  void enabled_it_serves_only_servlet_web_apps_with_oncely_server_and_oncely_enabled() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyServerAutoConfiguration.class))
        .withPropertyValues("oncely.server.enabled=true", "oncely.server.store.engine=memory")
        .run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean(IdempotentEndpoints.class));
    enabled().withClassLoader(new FilteredClassLoader(IdempotentEndpoints.class))
        .run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean(IdempotentEndpoints.class).hasSingleBean(IntentStore.class));
    enabled().withPropertyValues("oncely.enabled=false")
        .run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean(IdempotentEndpoints.class).doesNotHaveBean(IntentStore.class));
  }

  @Test
  void defaults_keep_receipts_in_a_mapdb_file_of_their_own_and_speak_ietf_by_principal() {
    runner().withPropertyValues("oncely.server.enabled=true").run(context -> {
      assertThat(context).hasNotFailed();
      ReceiptStore receipts = context.getBean(ReceiptStore.class);
      assertThat(receipts.intentStore()).isInstanceOf(MapDbIntentStore.class)
          .isNotSameAs(context.getBean(IntentStore.class));
      assertThat(Files.exists(dir.resolve("receipts.db"))).isTrue();
      IdempotentEndpoints endpoints = context.getBean(IdempotentEndpoints.class);
      assertThat(endpoints.receipts()).isSameAs(receipts);
      assertThat(endpoints.dialect()).isEqualTo(ServerDialect.IETF);
      assertThat(endpoints.statusPath()).isEqualTo("/oncely/receipts");
      assertThat(context.getBean(ScopeResolver.class).scopeOf(request())).isEqualTo("alice");
      assertThat(context).hasSingleBean(TransactionalRecoveryPoint.class);
      assertThat(context.getBean("oncelyIdempotencyFilter", FilterRegistrationBean.class)
          .getOrder()).isEqualTo(-90);
    });
  }

  @Test
  void the_filter_follows_spring_securitys_order_unless_its_own_is_set() {
    enabled().withPropertyValues("spring.security.filter.order=5").run(context ->
        assertThat(context.getBean("oncelyIdempotencyFilter", FilterRegistrationBean.class)
            .getOrder()).isEqualTo(15));
    enabled().withPropertyValues("oncely.server.filter-order=-500").run(context ->
        assertThat(context.getBean("oncelyIdempotencyFilter", FilterRegistrationBean.class)
            .getOrder()).isEqualTo(-500));
  }

  @Test
  void properties_set_the_dialect_the_scope_header_the_status_path_and_the_engine() {
    enabled().withPropertyValues("oncely.server.dialect=stripe",
        "oncely.server.scope=header:X-Tenant-Id", "oncely.server.status-path=/receipts",
        "oncely.server.store.engine=sqlite").run(context -> {
          assertThat(context).hasNotFailed();
          IdempotentEndpoints endpoints = context.getBean(IdempotentEndpoints.class);
          assertThat(endpoints.dialect()).isEqualTo(ServerDialect.STRIPE);
          assertThat(endpoints.statusPath()).isEqualTo("/receipts");
          assertThat(context.getBean(ScopeResolver.class)
              .scopeOf(request("X-Tenant-Id", "tenant-7"))).isEqualTo("tenant-7");
          assertThat(context.getBean(ReceiptStore.class).intentStore())
              .isInstanceOf(SqliteIntentStore.class);
        });
    enabled().run(context -> assertThat(context.getBean(ReceiptStore.class).intentStore())
        .isInstanceOf(InMemoryIntentStore.class));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "oncely.server.scope=tenant | oncely.server.scope must be principal or header:<Name>,"
          + " was tenant",
      "oncely.server.scope=header:X Tenant | oncely.server.scope names the header \"X Tenant\","
          + " which is not a header name",
      "oncely.server.status-path=receipts | oncely.server.status-path must start with / and not"
          + " end with one, was receipts",
      "oncely.server.instance= | oncely.server.instance must not be blank",
      "oncely.server.store.engine=postgres | oncely.server.store.engine is postgres, which needs",
      "oncely.server.endpoints[payments.create].lease=0s | oncely.server.endpoints"
          + "[payments.create].lease must be 1 s to 1 h, was PT0S",
      "oncely.server.endpoints[payments.create].in-progress-wait=2m | oncely.server.endpoints"
          + "[payments.create].in-progress-wait must be 0..60 s, was PT2M",
      "oncely.server.endpoints[payments.create].retention=10s | oncely.server.endpoints"
          + "[payments.create].retention must be at least 1 minute, was PT10S",
      "oncely.server.endpoints[payments.create].max-body-bytes=0 | oncely.server.endpoints"
          + "[payments.create].max-body-bytes must be positive, was 0",
      "oncely.server.endpoints[payments.create].replayed-headers=Set-Cookie | oncely.server"
          + ".endpoints[payments.create].replayed-headers is refused: Set-Cookie is never stored",
      "oncely.server.endpoints[payments.create].path=payments | oncely.server.endpoints"
          + "[payments.create].path must be a path pattern starting with /, was payments",
      "oncely.server.endpoints[payments.create].path=/payments/{id:\\d+} | oncely.server"
          + ".endpoints[payments.create].path cannot be routed: the variable {id:\\d+} has a"
          + " regular expression",
      "oncely.server.endpoints[payments.create].path=/files/*.json | oncely.server.endpoints"
          + "[payments.create].path cannot be routed: the segment *.json mixes literal text",
      "oncely.server.endpoints[payments.create].method=PO ST | oncely.server.endpoints"
          + "[payments.create].method must be an HTTP method, was PO ST",
      "oncely.server.purge.interval=0s | oncely.server.purge.interval must be positive, was PT0S",
      "oncely.server.purge.step=-1m | oncely.server.purge.step must be positive, was PT-1M"})
  void a_refused_property_fails_the_start_naming_the_property(String property, String expected) {
    String[] routed = property.contains(".path=") ? new String[0]
        : new String[] {"oncely.server.endpoints[payments.create].path=/payments"};
    enabled().withPropertyValues(routed).withPropertyValues(property).run(context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis =
          StarterFailureAnalyzers.properties(context.getStartupFailure());
      assertThat(analysis).as("analyzed " + context.getStartupFailure()).isNotNull();
      assertThat(analysis.getDescription()).contains(expected);
      String name = property.substring(0, property.indexOf('='));
      assertThat(analysis.getAction()).startsWith("Change " + name);
    });
  }

  @Test
  void a_postgres_schema_that_is_not_a_plain_name_fails_the_start_naming_the_property() {
    // Never connected: the name is refused before the store is built.
    enabled().withBean(DataSource.class, PGSimpleDataSource::new)
        .withPropertyValues("oncely.server.store.engine=postgres",
            "oncely.server.store.schema=Receipts").run(context -> {
          FailureAnalysis analysis =
              StarterFailureAnalyzers.properties(context.getStartupFailure());
          assertThat(analysis.getDescription()).contains("oncely.server.store.schema must be a"
              + " plain lower-case PostgreSQL name");
        });
  }

  @Test
  void the_receipt_store_never_shares_the_clients_store_file() {
    enabled().withPropertyValues("oncely.server.store.engine=mapdb",
        "oncely.server.store.path=" + dir.resolve("intents.db"))
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .isInstanceOfSatisfying(OncelyPropertyException.class, e -> {
              assertThat(e.property()).isEqualTo("oncely.server.store.path");
              assertThat(e).hasMessageContaining("is the client's intent store file too");
            }));
  }

  @Test
  void a_receipt_file_another_process_holds_is_reported_with_the_server_store_properties() {
    Path receipts = dir.resolve("held-receipts.db");
    try (IntentStore held = MapDbIntentStore.open(receipts)) {
      runner().withPropertyValues("oncely.server.enabled=true",
          "oncely.server.store.path=" + receipts).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = StarterFailureAnalyzers.stores(
                context.getStartupFailure(), new MockEnvironment()
                    .withProperty("oncely.server.store.path", receipts.toString()));
            assertThat(analysis.getDescription())
                .startsWith("Oncely's receipt store could not be opened")
                .contains("oncely.server.store.engine: (unset: mapdb)")
                .contains("oncely.server.store.path: " + receipts)
                .doesNotContain("oncely.store.path");
            assertThat(analysis.getAction()).contains("its own oncely.server.store.path");
          });
    }
  }

  @Test
  void the_apps_beans_win_and_its_recovery_and_every_listener_are_used() {
    ReceiptStore own = ReceiptStore.on(new InMemoryIntentStore());
    List<String> asked = new CopyOnWriteArrayList<>();
    List<String> heard = new CopyOnWriteArrayList<>();
    enabled().withBean(ReceiptStore.class, () -> own)
        .withBean(ScopeResolver.class, () -> request -> "fixed")
        .withBean(ReceiptRecovery.class, () -> receipt -> {
          asked.add(receipt.reference());
          return RecoveryDecision.unknown("the provider has not answered yet");
        })
        .withBean("first", ReceiptListener.class, () -> event -> heard.add("first " + event.kind()))
        .withBean("failing", ReceiptListener.class, () -> event -> {
          throw new IllegalStateException("a listener that fails");
        })
        .withBean("second", ReceiptListener.class,
            () -> event -> heard.add("second " + event.kind()))
        .run(context -> {
          assertThat(context).hasNotFailed();
          IdempotentEndpoints endpoints = context.getBean(IdempotentEndpoints.class);
          assertThat(endpoints.receipts()).isSameAs(own);
          assertThat(context.getBean(ScopeResolver.class).scopeOf(request())).isEqualTo("fixed");
          assertThat(Files.exists(dir.resolve("receipts.db"))).isFalse();
          EndpointPolicy policy = EndpointPolicy.builder("payments.create").build();
          InboundRequest request = request("Idempotency-Key", "\"k-1\"");

          ServerAnswer first = endpoints.handle(request, policy, handler -> {
            handler.pending("charge-7", "the provider has not answered");
            return ServerAnswer.json(202, "{}");
          });
          ServerAnswer repeat = endpoints.handle(request, policy,
              handler -> ServerAnswer.json(201, "{}"));

          assertThat(first.status()).isEqualTo(202);
          assertThat(repeat.status()).isEqualTo(202);
          assertThat(asked).containsExactly("charge-7");
          assertThat(heard).containsExactly("first RESERVED", "second RESERVED",
              "first PENDING", "second PENDING", "first PENDING_ANSWERED",
              "second PENDING_ANSWERED");
        });
  }

  @Test
  void finished_receipts_past_their_retention_are_purged_while_the_context_runs()
      throws Exception {
    CountDownLatch purged = new CountDownLatch(2);
    ReceiptStore counted = ReceiptStore.on(new ForwardingIntentStore(new InMemoryIntentStore()) {
      @Override
      public int purgeExpired(Instant now) {
        purged.countDown();
        return super.purgeExpired(now);
      }
    });
    enabled().withBean(ReceiptStore.class, () -> counted)
        .withPropertyValues("oncely.server.purge.interval=20ms").run(context -> {
          assertThat(context.getBean(ReceiptPurge.class).isRunning()).isTrue();
          assertThat(purged.await(20, TimeUnit.SECONDS)).as("two purges ran").isTrue();
        });
    enabled().withPropertyValues("oncely.server.purge.enabled=false").run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(ReceiptPurge.class));
  }

  @Test
  void a_purge_removes_finished_receipts_past_retention_and_keeps_pending_ones()
      throws Exception {
    try (ReceiptStore receipts = ReceiptStore.on(new InMemoryIntentStore());
        IdempotentEndpoints endpoints = IdempotentEndpoints.builder(receipts).build()) {
      EndpointPolicy policy = EndpointPolicy.builder("payments.create")
          .retention(Duration.ofMinutes(1)).build();
      endpoints.handle(request("Idempotency-Key", "\"done\""), policy,
          handler -> ServerAnswer.json(201, "{}"));
      endpoints.handle(request("Idempotency-Key", "\"waiting\""), policy, handler -> {
        handler.pending("charge-7", "the provider has not answered");
        return ServerAnswer.json(202, "{}");
      });
      Clock later = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(2));

      int removed = new ReceiptPurge(receipts, Duration.ofMinutes(5), Duration.ofMinutes(1),
          later).purgeNow();

      assertThat(removed).isEqualTo(1);
      assertThat(receipts.listUnfinished()).extracting(r -> r.reference())
          .containsExactly("charge-7");
    }
  }

  @Test
  void with_a_meter_registry_the_receipt_metrics_are_a_listener_bean() {
    enabled().withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new).run(context ->
        assertThat(context).hasNotFailed().hasSingleBean(OncelyServerMetrics.class));
    enabled().run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(OncelyServerMetrics.class));
  }
}
