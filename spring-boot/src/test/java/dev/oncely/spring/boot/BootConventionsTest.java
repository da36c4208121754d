package dev.oncely.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.IntentTag;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.StoreLockedException;
import dev.oncely.client.event.IntentListener;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.spring.web.IntentAttributes;
import dev.oncely.spring.web.OncelyClientHttpRequestFactory;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * The starter follows Boot's conventions, each in a real context: Boot's {@code RestClient.Builder}
 * sends through the Oncely request factory, a refused {@code oncely.*} property or an unopenable
 * store fails the start with "APPLICATION FAILED TO START" naming the property, and the work the
 * app did not ask for (the resume at start-up, the due work) logs one {@code INFO} line with
 * counts and no key.
 */
@ExtendWith(OutputCaptureExtension.class)
class BootConventionsTest {
  private static final String BODY = "{\"order\":\"order-7\",\"amount\":1000}";

  @TempDir
  Path dir;

  private final MockWebServer server = new MockWebServer();
  private IdempotentServer kit;
  private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
  private final Logger starterLog = Logger.getLogger("dev.oncely.spring.boot");
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord record) {
      synchronized (logged) {
        logged.add(record);
        logged.notifyAll();
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void listen() {
    starterLog.addHandler(capture);
  }

  @AfterEach
  void stop() throws Exception {
    starterLog.removeHandler(capture);
    server.close();
  }

  private Path storeFile() {
    return dir.resolve("oncely").resolve("intents.db");
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class,
            OncelyHealthAutoConfiguration.class, OncelyRestClientAutoConfiguration.class,
            RestClientAutoConfiguration.class))
        .withPropertyValues("oncely.store.path=" + storeFile(), "oncely.due-work.enabled=false",
            "oncely.retry.base-delay=5ms", "oncely.retry.max-delay=20ms");
  }

  private void startKit(FaultScript faults) throws Exception {
    kit = IdempotentServer.builder().faults(faults)
        .intentOf(IdempotentServer.jsonField("order")).build();
    server.setDispatcher(kit);
    server.start();
  }

  private IntentSpec payment() {
    return IntentSpec.builder().operation("create-payment").scope("tenant-42")
        .businessId("order-7").post(server.url("/payments").toString())
        .jsonBody(BODY.getBytes(StandardCharsets.UTF_8)).build();
  }

  /** A pending intent in the store file, as a stopped app leaves it; returns its key. */
  private String pendingIntent() {
    try (IntentStore store = MapDbIntentStore.open(storeFile());
        IdempotentClient stopped = IdempotentClient.builder().store(store)
            .listener(IntentListener.NONE)
            .retryPolicy(RetryPolicy.builder().maxAttempts(1).build()).build()) {
      assertThat(stopped.execute(payment()).state()).isEqualTo(IntentState.PENDING);
      IntentRecord pending = store.listUnfinished().get(0);
      return pending.id().key();
    }
  }

  private List<String> infoLines(String prefix) {
    return logged.stream().filter(r -> r.getLevel() == Level.INFO)
        .map(r -> r.getMessage()).filter(m -> m.startsWith(prefix)).toList();
  }

  /** Waits (at most 20 s) for an INFO line starting with {@code prefix}, woken by each log line. */
  private List<String> awaitInfo(String prefix) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    synchronized (logged) {
      while (infoLines(prefix).isEmpty()) {
        long left = until - System.nanoTime();
        if (left <= 0) {
          break;
        }
        logged.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
    }
    return infoLines(prefix);
  }

  @Test
  void boots_rest_client_builder_sends_through_the_oncely_request_factory() throws Exception {
    startKit(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build());
    runner().run(context -> {
      assertThat(context).hasNotFailed().hasBean("oncelyRestClientCustomizer");
      RestClient rest = context.getBean(RestClient.Builder.class)
          .baseUrl(server.url("/").toString()).build();

      String answer = rest.post().uri("/payments")
          .attributes(IntentAttributes.of(IntentTag.builder().operation("create-payment")
              .scope("tenant-42").businessId("order-7").build()))
          .contentType(MediaType.APPLICATION_JSON).body(BODY)
          .retrieve().body(String.class);

      // Oncely's: a key on each attempt, the dropped answer resent under it, a durable record.
      assertThat(answer).contains("succeeded");
      assertThat(kit.requests().all()).hasSize(2)
          .extracting(r -> r.header(IdempotentServer.DEFAULT_KEY_HEADER)).doesNotContainNull()
          .containsOnly(kit.requests().all().get(0).header(IdempotentServer.DEFAULT_KEY_HEADER));
      assertThat(context.getBean(IntentStore.class)
          .findByBusinessId("tenant-42", "create-payment", "order-7")).get()
          .extracting(IntentRecord::state).isEqualTo(IntentState.COMPLETED);
    });
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
  }

  @Test
  void the_customizer_steps_aside_when_switched_off_or_without_boots_rest_client() {
    runner().withPropertyValues("oncely.rest-client.enabled=false").run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean("oncelyRestClientCustomizer")
            .hasSingleBean(RestClient.Builder.class));
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class,
            OncelyRestClientAutoConfiguration.class))
        .withPropertyValues("oncely.store.engine=memory", "oncely.due-work.enabled=false")
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.restclient"))
        .run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean("oncelyRestClientCustomizer")
            .hasSingleBean(OncelyClientHttpRequestFactory.class));
    runner().withBean("oncelyRestClientCustomizer", RestClientCustomizer.class,
        () -> builder -> { }).run(context -> assertThat(context).hasNotFailed()
            .getBeans(RestClientCustomizer.class).hasSize(1));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "oncely.retry.max-attempts=0 | oncely.retry.max-attempts must be >= 1, was 0",
      "oncely.retry.base-delay=-1s | oncely.retry.base-delay must be a duration >= 0",
      "oncely.retry.deadline=0s | oncely.retry.deadline must be a duration > 0",
      "oncely.retry.attempt-timeout=0s | oncely.retry.attempt-timeout must be a duration > 0",
      "oncely.retry.max-delay=1ms | oncely.retry.base-delay and oncely.retry.max-delay are refused",
      "oncely.budget.capacity=-1 | oncely.budget.capacity must be >= 0, was -1",
      "oncely.budget.retry-cost=-2 | oncely.budget.retry-cost must be >= 0, was -2",
      "oncely.budget.refill-per-second=-1 | oncely.budget.refill-per-second must be >= 0",
      "oncely.key-retention=0s | oncely.key-retention must be a duration > 0",
      "oncely.health.max-pending-age=0s | oncely.health.max-pending-age must be positive",
      "oncely.store.engine=postgres | oncely.store.engine is postgres, which needs"})
  void a_refused_property_fails_the_start_naming_the_property(String property, String expected) {
    runner().withPropertyValues(property).run(context -> {
      assertThat(context).hasFailed();
      Throwable failure = context.getStartupFailure();
      FailureAnalysis analysis = new OncelyFailureAnalyzer().analyze(failure);
      assertThat(analysis).as("analyzed " + failure).isNotNull();
      assertThat(analysis.getDescription()).contains(expected);
      String name = property.substring(0, property.indexOf('='));
      assertThat(analysis.getAction()).startsWith("Change ").contains(name);
    });
  }

  @Test
  void due_work_interval_is_named_too() {
    runner().withPropertyValues("oncely.due-work.enabled=true", "oncely.due-work.interval=0s")
        .run(context -> assertThat(new OncelyFailureAnalyzer()
            .analyze(context.getStartupFailure()).getDescription())
            .contains("oncely.due-work.interval must be positive, was PT0S"));
  }

  /** What an app's {@code @SpringBootApplication} imports of the starter. */
  @ImportAutoConfiguration({OncelyAutoConfiguration.class, OncelyHealthAutoConfiguration.class,
      OncelyRestClientAutoConfiguration.class})
  static class App {}

  private SpringApplication app(String... properties) {
    return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
        .properties("oncely.store.path=" + storeFile(), "oncely.due-work.enabled=false",
            "oncely.resume-on-startup=false")
        .properties(properties).build();
  }

  @Test
  void a_bad_property_prints_application_failed_to_start_with_the_property(
      CapturedOutput output) {
    try (ConfigurableApplicationContext started =
        app("oncely.retry.max-attempts=0").run()) {
      assertThat(started).as("started with max-attempts=0").isNull();
    } catch (RuntimeException expected) {
      assertThat(expected).hasRootCauseInstanceOf(IllegalArgumentException.class);
    }

    assertThat(output.toString()).contains("APPLICATION FAILED TO START")
        .contains("oncely.retry.max-attempts must be >= 1, was 0")
        .contains("Change oncely.retry.max-attempts")
        .doesNotContain("maxAttempts must be");
  }

  @Test
  void a_store_another_process_holds_prints_application_failed_to_start_with_the_store_path(
      CapturedOutput output) {
    try (IntentStore held = MapDbIntentStore.open(storeFile())) {
      try (ConfigurableApplicationContext started = app().run()) {
        assertThat(started).as("started on a held store").isNull();
      } catch (RuntimeException expected) {
        assertThat(expected).hasRootCauseInstanceOf(StoreLockedException.class);
      }
    }

    assertThat(output.toString()).contains("APPLICATION FAILED TO START")
        .contains("Oncely's intent store could not be opened")
        .contains("oncely.store.path: " + storeFile())
        .contains("give each instance its own oncely.store.path");
  }

  @Test
  void the_store_analyzer_names_the_defaults_when_no_store_property_is_set() {
    FailureAnalysis analysis = new OncelyStoreFailureAnalyzer(new StandardEnvironment())
        .analyze(new IllegalStateException(new StoreLockedException("the store is locked", null)));
    assertThat(analysis.getDescription()).contains("oncely.store.engine: (unset")
        .contains("oncely.store.path: (unset: oncely/intents.db)");
  }

  private static void ready(AssertableApplicationContext context) {
    ConfigurableApplicationContext app =
        context.getSourceApplicationContext(ConfigurableApplicationContext.class);
    app.publishEvent(new ApplicationReadyEvent(new SpringApplication(), new String[0], app,
        Duration.ZERO));
  }

  @Test
  void the_resume_at_start_up_logs_one_info_line_with_counts_and_no_key() throws Exception {
    startKit(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build());
    String key = pendingIntent();

    runner().run(context -> {
      ready(context);

      assertThat(awaitInfo("Oncely resumed")).containsExactly(
          "Oncely resumed 1 unfinished intent at start-up: 1 completed");
    });
    assertThat(logged).extracting(LogRecord::getMessage).noneMatch(m -> m.contains(key));
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
  }

  @Test
  void an_empty_store_at_start_up_says_so_in_one_line() {
    runner().run(context -> {
      ready(context);

      assertThat(infoLines("Oncely")).containsExactly(
          "Oncely found no unfinished intents at start-up");
    });
  }

  @Test
  void background_completions_of_due_work_log_one_info_line_with_counts_and_no_key()
      throws Exception {
    startKit(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build());
    String key = pendingIntent();

    runner().withPropertyValues("oncely.due-work.enabled=true", "oncely.due-work.interval=50ms",
        "oncely.resume-on-startup=false").run(context -> {
          assertThat(awaitInfo("Oncely due work")).containsExactly(
              "Oncely due work drove 1 unfinished intent in the background: 1 completed");
        });
    assertThat(logged).extracting(LogRecord::getMessage).noneMatch(m -> m.contains(key));
    assertThat(kit.ledger().countOf("order-7")).isEqualTo(1);
  }
}
