package dev.oncely.spring.boot.webhooks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentStore;
import dev.oncely.micrometer.OncelyInboxMetrics;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxHandler;
import dev.oncely.server.inbox.InboxListener;
import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.webhook.WebhookAnswer;
import dev.oncely.server.webhook.WebhookListener;
import dev.oncely.server.webhook.WebhookReceiver;
import dev.oncely.server.webhook.WebhookRefusedException;
import dev.oncely.server.webhook.WebhookRequest;
import dev.oncely.spring.boot.OncelyAutoConfiguration;
import dev.oncely.spring.boot.StarterFailureAnalyzers;
import dev.oncely.spring.boot.server.OncelyServerAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.mock.env.MockEnvironment;
import tools.jackson.databind.JsonNode;

/**
 * The webhooks' wiring, each question in a real context (no web server; the receiver is asked
 * in-process): off unless a source is configured or {@code oncely.webhooks.enabled}; an inbox
 * store of its own; each scheme built from its properties; handlers routed by source and type;
 * properties reaching the inbox; refused values and handlers failing the start naming them;
 * listeners, metrics, health and the purge.
 */
class WebhooksAutoConfigurationTest {
  @TempDir
  Path dir;

  /** The current time in seconds, as a sender signs it. */
  private static long now() {
    return Instant.now().getEpochSecond();
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class,
            OncelyWebhooksAutoConfiguration.class, OncelyWebhooksHealthAutoConfiguration.class))
        .withPropertyValues("oncely.store.engine=memory", "oncely.due-work.enabled=false",
            "oncely.resume-on-startup=false",
            "oncely.webhooks.store.path=" + dir.resolve("inbox.db"));
  }

  /** Three sources, one per built-in scheme, messages in memory, events heard. */
  private ApplicationContextRunner sources() {
    return runner().withPropertyValues("oncely.webhooks.store.engine=memory",
            "oncely.webhooks.sources.stripe.secrets=" + Signed.STRIPE_SECRET,
            "oncely.webhooks.sources.github.secrets=" + Signed.GITHUB_SECRET,
            "oncely.webhooks.sources.standard.secrets=" + Signed.STANDARD_SECRET)
        .withBean(Events.class);
  }

  /** Every inbox event, for tests to wait on. */
  static class Events implements InboxListener {
    final BlockingQueue<InboxEvent> queue = new LinkedBlockingQueue<>();

    @Override
    public void onEvent(InboxEvent event) {
      queue.add(event);
    }

    InboxEvent await(InboxEvent.Kind kind, String source) throws InterruptedException {
      while (true) {
        InboxEvent e = queue.poll(10, TimeUnit.SECONDS);
        assertThat(e).describedAs("an event " + kind + " of " + source).isNotNull();
        if (e.kind() == kind && e.source().equals(source)) {
          return e;
        }
      }
    }
  }

  /** What the handlers below were called with, in order. */
  static class Calls {
    final BlockingQueue<String> queue = new LinkedBlockingQueue<>();

    String next() throws InterruptedException {
      String call = queue.poll(10, TimeUnit.SECONDS);
      assertThat(call).describedAs("a handler call").isNotNull();
      return call;
    }
  }

  static class StripeHandlers {
    private final Calls calls;

    StripeHandlers(Calls calls) {
      this.calls = calls;
    }

    @WebhookHandler(source = "stripe", type = "payment_intent.succeeded")
    void succeeded(InboxMessage message, JsonNode event) {
      calls.queue.add("succeeded " + message.messageId() + " "
          + event.at("/data/object/amount").asString());
    }

    @WebhookHandler(source = "stripe", type = {"charge.refunded", "charge.failed"})
    void charges(InboxMessage message) {
      calls.queue.add("charges " + message.type());
    }
  }

  /** Every GitHub event: a bean that is an InboxHandler. */
  @WebhookHandler(source = "github")
  static class GitHubEvents implements InboxHandler {
    private final Calls calls;

    GitHubEvents(Calls calls) {
      this.calls = calls;
    }

    @Override
    public void handle(InboxMessage message) {
      calls.queue.add("github " + message.type() + " " + message.messageId());
    }
  }

  /** A lambda handler bean, annotated on its {@code @Bean} method. */
  @Configuration(proxyBeanMethods = false)
  static class StandardHandlers {
    @Bean
    @WebhookHandler(source = "standard", type = "invoice.paid")
    InboxHandler invoicePaid(Calls calls) {
      return message -> calls.queue.add("invoice.paid " + message.messageId());
    }
  }

  @Test
  void without_a_source_or_enabled_nothing_is_configured_and_the_client_is_unchanged() {
    runner().run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(IntentStore.class)
          .doesNotHaveBean(Inbox.class).doesNotHaveBean(WebhookReceiver.class)
          .doesNotHaveBean(OncelyInboxStore.class);
      assertThat(Files.exists(dir.resolve("inbox.db"))).isFalse();
    });
  }

  @Test
  void a_source_turns_it_on_and_enabled_false_oncely_enabled_false_or_no_oncely_server_turn_it_off() {
    sources().run(context -> assertThat(context).hasNotFailed().hasSingleBean(Inbox.class)
        .hasSingleBean(WebhookReceiver.class).hasSingleBean(InboxPurge.class)
        .hasSingleBean(InboxWorkersLifecycle.class).hasSingleBean(IntentStore.class));
    sources().withPropertyValues("oncely.webhooks.enabled=false").run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(Inbox.class));
    sources().withPropertyValues("oncely.enabled=false").run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(Inbox.class)
            .doesNotHaveBean(IntentStore.class));
    sources().withClassLoader(new FilteredClassLoader(Inbox.class)).run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean("oncelyInbox")
            .hasSingleBean(IntentStore.class));
    // Enabled without a source: the inbox alone, for queue consumers (once).
    runner().withPropertyValues("oncely.webhooks.enabled=true",
        "oncely.webhooks.store.engine=memory").run(context ->
        assertThat(context).hasNotFailed().hasSingleBean(Inbox.class)
            .doesNotHaveBean(WebhookReceiver.class));
  }

  @Test
  void a_source_named_in_environment_variables_turns_it_on_and_is_bound() {
    runner().withPropertyValues("oncely.webhooks.store.engine=memory")
        .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
            new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                Map.of("ONCELY_WEBHOOKS_SOURCES_STRIPE_SECRETS", Signed.STRIPE_SECRET))))
        .run(context -> {
          assertThat(context).hasNotFailed();
          WebhookReceiver receiver = context.getBean(WebhookReceiver.class);
          assertThat(receiver.sources()).containsExactly("stripe");
          assertThat(receiver.receive("stripe", Signed.stripe(Signed.STRIPE_SECRET, now(),
              "{\"id\":\"evt_1\"}")).status()).isEqualTo(200);
        });
  }

  @Test
  void defaults_keep_messages_in_a_mapdb_file_of_their_own_served_under_slash_webhooks() {
    WebApplicationContextRunner web = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class,
            OncelyWebhooksAutoConfiguration.class))
        .withPropertyValues("oncely.store.engine=memory", "oncely.due-work.enabled=false",
            "oncely.resume-on-startup=false",
            "oncely.webhooks.store.path=" + dir.resolve("inbox.db"),
            "oncely.webhooks.sources.stripe.secrets=" + Signed.STRIPE_SECRET);
    web.run(context -> {
      assertThat(context).hasNotFailed();
      IntentStore store = context.getBean(OncelyInboxStore.class).intentStore();
      assertThat(store).isInstanceOf(MapDbIntentStore.class)
          .isNotSameAs(context.getBean(IntentStore.class));
      assertThat(Files.exists(dir.resolve("inbox.db"))).isTrue();
      assertThat(context.getBean(Inbox.class).store()).isSameAs(store);
      assertThat(context.getBean(WebhookReceiver.class).sources()).containsExactly("stripe");
      assertThat(context.getBean(WebhookReceiver.class).maxBodyBytes())
          .isEqualTo(WebhookReceiver.DEFAULT_MAX_BODY_BYTES);
      assertThat(context.getBean("oncelyWebhookServlet", ServletRegistrationBean.class)
          .getUrlMappings()).containsExactly("/webhooks/*");
    });
    web.withPropertyValues("oncely.webhooks.path=/hooks/in", "oncely.webhooks.max-body-bytes=100")
        .run(context -> {
          assertThat(context.getBean("oncelyWebhookServlet", ServletRegistrationBean.class)
              .getUrlMappings()).containsExactly("/hooks/in/*");
          assertThat(context.getBean(WebhookReceiver.class).maxBodyBytes()).isEqualTo(100);
        });
    // Not a servlet web app: the receiver, no servlet (a reactive app calls receive itself).
    sources().run(context -> assertThat(context).hasSingleBean(WebhookReceiver.class)
        .doesNotHaveBean("oncelyWebhookServlet"));
  }

  @Test
  void each_scheme_verifies_its_senders_deliveries_with_any_configured_secret() {
    byte[] acmeKey = "acme's key bytes, any length".getBytes(UTF_8);
    String oldStandard = "whsec_" + Base64.getEncoder().encodeToString(
        "the secret before the rotation".getBytes(UTF_8));
    sources().withPropertyValues(
        "oncely.webhooks.sources.standard.secrets=" + oldStandard + "," + Signed.STANDARD_SECRET,
        "oncely.webhooks.sources.standard.tolerance=5s",
        "oncely.webhooks.sources.acme.scheme=hmac",
        "oncely.webhooks.sources.acme.secrets=" + Base64.getEncoder().encodeToString(acmeKey),
        "oncely.webhooks.sources.acme.hmac.secret-encoding=base64",
        "oncely.webhooks.sources.acme.hmac.signature-header=X-Acme-Signature",
        "oncely.webhooks.sources.acme.hmac.prefix=sha512=",
        "oncely.webhooks.sources.acme.hmac.algorithm=hmac-sha512",
        "oncely.webhooks.sources.acme.hmac.id-header=X-Acme-Event",
        "oncely.webhooks.sources.acme.hmac.type-member=kind",
        "oncely.webhooks.sources.acme.hmac.timestamp-header=X-Acme-Time",
        "oncely.webhooks.sources.acme.hmac.signed-content=timestamp-body").run(context -> {
          assertThat(context).hasNotFailed();
          WebhookReceiver receiver = context.getBean(WebhookReceiver.class);
          String json = "{\"id\":\"evt_1\",\"type\":\"invoice.paid\",\"kind\":\"order.placed\"}";

          assertThat(receiver.receive("stripe", Signed.stripe(Signed.STRIPE_SECRET, now(), json)))
              .isEqualTo(new WebhookAnswer(200, "accepted"));
          assertThat(receiver.receive("stripe", Signed.stripe("whsec_forged", now(), json))
              .status()).isEqualTo(401);
          assertThat(receiver.receive("github", Signed.github(Signed.GITHUB_SECRET, "d-1",
              "push", json))).isEqualTo(new WebhookAnswer(200, "accepted"));
          assertThat(receiver.receive("github", Signed.github("forged", "d-2", "push", json))
              .status()).isEqualTo(401);
          // Signed with the second of two secrets (a rotation), then outside the 5 s tolerance.
          assertThat(receiver.receive("standard", Signed.standard(Signed.STANDARD_KEY, "msg_1",
              now(), json))).isEqualTo(new WebhookAnswer(200, "accepted"));
          assertThat(receiver.receive("standard", Signed.standard(Signed.STANDARD_KEY, "msg_2",
              now() - 60, json)).text()).contains("60 s old; the receiver accepts 5 s");

          byte[] body = json.getBytes(UTF_8);
          String signature = "sha512=" + HexFormat.of().formatHex(Signed.hmac("HmacSHA512",
              acmeKey, (now() + ".").getBytes(UTF_8), body));
          assertThat(receiver.receive("acme", Signed.request(Map.of("X-Acme-Signature",
              signature, "X-Acme-Event", "ord-1", "X-Acme-Time", Long.toString(now())), body)))
              .isEqualTo(new WebhookAnswer(200, "accepted"));
          assertThat(context.getBean(Inbox.class).get("acme", "ord-1").orElseThrow().type())
              .isEqualTo("order.placed");
          assertThat(receiver.receive("acme", Signed.request(Map.of("X-Acme-Signature",
              signature, "X-Acme-Event", "ord-1", "X-Acme-Time", Long.toString(now() + 1)), body))
              .status()).describedAs("the timestamp is signed").isEqualTo(401);
        });
  }

  @Test
  void each_message_goes_to_the_handler_of_its_type_else_the_sources_own_else_nowhere()
      throws Exception {
    sources().withBean(Calls.class).withBean(StripeHandlers.class).withBean(GitHubEvents.class)
        .withUserConfiguration(StandardHandlers.class).run(context -> {
          assertThat(context).hasNotFailed();
          WebhookReceiver receiver = context.getBean(WebhookReceiver.class);
          Calls calls = context.getBean(Calls.class);
          Events events = context.getBean(Events.class);

          receiver.receive("stripe", Signed.stripe(Signed.STRIPE_SECRET, now(),
              "{\"id\":\"evt_1\",\"type\":\"payment_intent.succeeded\","
                  + "\"data\":{\"object\":{\"amount\":\"1000\"}}}"));
          assertThat(calls.next()).isEqualTo("succeeded evt_1 1000");
          receiver.receive("stripe", Signed.stripe(Signed.STRIPE_SECRET, now(),
              "{\"id\":\"evt_2\",\"type\":\"charge.failed\"}"));
          assertThat(calls.next()).isEqualTo("charges charge.failed");
          receiver.receive("github", Signed.github(Signed.GITHUB_SECRET, "d-1", "push", "{}"));
          assertThat(calls.next()).isEqualTo("github push d-1");
          receiver.receive("standard", Signed.standard(Signed.STANDARD_KEY, "msg_1", now(),
              "{\"type\":\"invoice.paid\"}"));
          assertThat(calls.next()).isEqualTo("invoice.paid msg_1");

          // No handler of this type and none for every type: acknowledged, nothing run.
          events.queue.clear();
          receiver.receive("stripe", Signed.stripe(Signed.STRIPE_SECRET, now(),
              "{\"id\":\"evt_3\",\"type\":\"customer.created\"}"));
          events.await(InboxEvent.Kind.HANDLED, "stripe");
          assertThat(context.getBean(Inbox.class).get("stripe", "evt_3").orElseThrow().state())
              .isEqualTo(InboxState.HANDLED);
          receiver.receive("standard", Signed.standard(Signed.STANDARD_KEY, "msg_2", now(),
              "{\"type\":\"invoice.voided\"}"));
          events.await(InboxEvent.Kind.HANDLED, "standard");
          assertThat(calls.queue).isEmpty();
        });
  }

  @Test
  void a_source_without_any_handler_keeps_its_messages_queued() throws Exception {
    sources().withBean(Calls.class).withBean(GitHubEvents.class).run(context -> {
      context.getBean(WebhookReceiver.class).receive("stripe", Signed.stripe(
          Signed.STRIPE_SECRET, now(), "{\"id\":\"evt_9\",\"type\":\"charge.failed\"}"));
      context.getBean(Events.class).await(InboxEvent.Kind.NO_HANDLER, "stripe");
      assertThat(context.getBean(Inbox.class).get("stripe", "evt_9").orElseThrow().state())
          .isEqualTo(InboxState.QUEUED);
    });
  }

  /** A handler that uses the inbox it is called from: resolved after the inbox exists. */
  static class Replayer {
    final Inbox inbox;
    final Calls calls;

    Replayer(Inbox inbox, Calls calls) {
      this.inbox = inbox;
      this.calls = calls;
    }

    @WebhookHandler(source = "stripe")
    void any(InboxMessage message) {
      calls.queue.add("any " + message.messageId() + " " + inbox.sources());
    }
  }

  @Test
  void a_message_stored_before_the_start_is_handled_once_the_context_has_refreshed()
      throws Exception {
    Path file = dir.resolve("stored.db");
    try (IntentStore store = MapDbIntentStore.open(file);
        Inbox stopped = Inbox.builder(store).workers(0).build()) {
      stopped.accept("stripe", "evt_old", "charge.failed", "{}".getBytes(UTF_8), null);
    }
    sources().withPropertyValues("oncely.webhooks.store.engine=mapdb",
        "oncely.webhooks.store.path=" + file).withBean(Calls.class).withBean(Replayer.class)
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(Calls.class).next()).isEqualTo("any evt_old [stripe]");
          context.getBean(Events.class).await(InboxEvent.Kind.HANDLED, "stripe");
        });
  }

  /** A stripe handler that always fails. */
  static class Failing {
    @WebhookHandler(source = "stripe")
    void any(InboxMessage message) {
      throw new IllegalStateException("the ledger is away");
    }
  }

  @Test
  void the_properties_reach_the_inbox() throws Exception {
    sources().withBean(Calls.class).withBean(GitHubEvents.class).withBean(Failing.class)
        .withPropertyValues("oncely.webhooks.max-failures=1", "oncely.webhooks.instance=web-1",
            "oncely.webhooks.sources.github.retention=7d").run(context -> {
              WebhookReceiver receiver = context.getBean(WebhookReceiver.class);
              Inbox inbox = context.getBean(Inbox.class);
              Events events = context.getBean(Events.class);

              receiver.receive("stripe", Signed.stripe(Signed.STRIPE_SECRET, now(),
                  "{\"id\":\"evt_1\",\"type\":\"charge.failed\"}"));
              events.await(InboxEvent.Kind.DEAD_LETTERED, "stripe");
              InboxMessage dead = inbox.get("stripe", "evt_1").orElseThrow();
              assertThat(dead.failures()).isEqualTo(1);
              assertThat(dead.leaseOwner()).isEqualTo("web-1");

              receiver.receive("github", Signed.github(Signed.GITHUB_SECRET, "d-1", "push",
                  "{}"));
              events.await(InboxEvent.Kind.HANDLED, "github");
              InboxMessage handled = inbox.get("github", "d-1").orElseThrow();
              assertThat(Duration.between(handled.updatedAt(), handled.expiresAt()))
                  .isEqualTo(Duration.ofDays(7));
            });
  }

  /** Every standard event, parsed. */
  static class StandardJson {
    @WebhookHandler(source = "standard")
    void any(JsonNode event) {}
  }

  @Test
  void a_payload_that_is_not_json_fails_the_run_of_a_json_handler_without_being_quoted()
      throws Exception {
    sources().withBean(StandardJson.class).withPropertyValues("oncely.webhooks.max-failures=1")
        .run(context -> {
          context.getBean(WebhookReceiver.class).receive("standard", Signed.standard(
              Signed.STANDARD_KEY, "msg_1", now(), "s3cr3t card number, not JSON {"));
          context.getBean(Events.class).await(InboxEvent.Kind.DEAD_LETTERED, "standard");

          InboxMessage dead = context.getBean(Inbox.class).get("standard", "msg_1")
              .orElseThrow();
          assertThat(dead.lastFailure()).startsWith("java.lang.IllegalArgumentException: the"
              + " payload of InboxMessage{standard").contains("is not JSON")
              .doesNotContain("s3cr3t").doesNotContain("msg_1");
        });
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "oncely.webhooks.sources.acme.scheme=standard | oncely.webhooks.sources.acme.secrets is"
          + " empty: source acme needs at least one signing secret",
      "oncely.webhooks.sources.acme.secrets=s3cr3t | oncely.webhooks.sources.acme.scheme is not"
          + " set: name the signature scheme of source acme (standard, stripe, github, hmac)",
      "oncely.webhooks.sources.acme.scheme=svix;oncely.webhooks.sources.acme.secrets=s3cr3t"
          + " | oncely.webhooks.sources.acme.scheme must be one of standard, stripe, github,"
          + " hmac, was svix",
      "oncely.webhooks.sources.standard.secrets=s3cr3t*not*base64 | oncely.webhooks.sources"
          + ".standard.secrets[0] is refused: a Standard Webhooks secret is whsec_ and base64",
      "oncely.webhooks.sources.github.secrets=s3cr3t;oncely.webhooks.sources.github.tolerance"
          + "=1m | oncely.webhooks.sources.github.tolerance is set, but GitHub signs no"
          + " timestamp",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.sources.stripe.tolerance"
          + "=0s | oncely.webhooks.sources.stripe.tolerance must be positive, was PT0S",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.sources.stripe.hmac"
          + ".signature-header=X-Sig | oncely.webhooks.sources.stripe.hmac is set, but the"
          + " source's scheme is stripe",
      "oncely.webhooks.sources.acme.scheme=hmac;oncely.webhooks.sources.acme.secrets=s3cr3t"
          + " | oncely.webhooks.sources.acme.hmac.signature-header is not set",
      "oncely.webhooks.sources.acme.scheme=hmac;oncely.webhooks.sources.acme.secrets=s3cr3t;"
          + "oncely.webhooks.sources.acme.hmac.signature-header=X-Sig | oncely.webhooks.sources"
          + ".acme.hmac is refused: name where the message id comes from",
      "oncely.webhooks.sources.acme.scheme=hmac;oncely.webhooks.sources.acme.secrets=s3cr3t;"
          + "oncely.webhooks.sources.acme.hmac.signature-header=X-Sig;oncely.webhooks.sources"
          + ".acme.hmac.id-member=id;oncely.webhooks.sources.acme.hmac.secret-encoding=hex"
          + " | oncely.webhooks.sources.acme.secrets[0] is not hex",
      "oncely.webhooks.sources[a/b].scheme=github;oncely.webhooks.sources[a/b].secrets=s3cr3t"
          + " | oncely.webhooks.sources.a/b is refused: a webhook source's name is 1 to 64",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.path=/ | oncely.webhooks"
          + ".path must be a path such as /webhooks",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.lease=500ms"
          + " | oncely.webhooks.lease must be at least 1 s, was PT0.5S",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.workers=-1"
          + " | oncely.webhooks.workers must be >= 0, was -1",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.max-failures=0"
          + " | oncely.webhooks.max-failures must be >= 1, was 0",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.backoff.first=0s"
          + " | oncely.webhooks.backoff.first must be positive, was PT0S",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.backoff.max=100ms"
          + " | oncely.webhooks.backoff.max must be at least oncely.webhooks.backoff.first (PT1S),"
          + " was PT0.1S",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.retention=0s"
          + " | oncely.webhooks.retention must be positive, was PT0S",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.sources.stripe.retention"
          + "=-1d | oncely.webhooks.sources.stripe.retention must be positive, was PT-24H",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.instance="
          + " | oncely.webhooks.instance must not be blank",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.max-body-bytes=0"
          + " | oncely.webhooks.max-body-bytes must be positive, was 0",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.purge.interval=0s"
          + " | oncely.webhooks.purge.interval must be positive, was PT0S",
      "oncely.webhooks.sources.stripe.secrets=s3cr3t;oncely.webhooks.store.engine=postgres"
          + " | oncely.webhooks.store.engine is postgres, which needs a DataSource bean"})
  void a_refused_property_fails_the_start_naming_the_property_and_never_a_secret(
      String properties, String expected) {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class,
            OncelyWebhooksAutoConfiguration.class))
        .withPropertyValues("oncely.store.engine=memory", "oncely.due-work.enabled=false",
            "oncely.resume-on-startup=false", "oncely.webhooks.store.engine=memory")
        .withPropertyValues(properties.split(";")).run(context -> {
          assertThat(context).hasFailed();
          FailureAnalysis analysis =
              StarterFailureAnalyzers.properties(context.getStartupFailure());
          assertThat(analysis).as("analyzed " + context.getStartupFailure()).isNotNull();
          assertThat(analysis.getDescription()).contains(expected).doesNotContain("s3cr3t");
          assertThat(analysis.getAction()).startsWith("Change oncely.webhooks.");
        });
  }

  @Test
  void the_inbox_never_shares_the_clients_or_the_receipts_store_file() {
    Path intents = dir.resolve("intents.db");
    runner().withPropertyValues("oncely.store.engine=mapdb", "oncely.store.path=" + intents,
        "oncely.webhooks.store.path=" + intents,
        "oncely.webhooks.sources.stripe.secrets=" + Signed.STRIPE_SECRET).run(context ->
            assertThat(StarterFailureAnalyzers.properties(context.getStartupFailure())
                .getDescription()).contains("oncely.webhooks.store.path is the client's intent"
                    + " store file too (oncely.store.path); inbox messages need a store of"
                    + " their own"));
    Path receipts = dir.resolve("receipts.db");
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class,
            OncelyServerAutoConfiguration.class, OncelyWebhooksAutoConfiguration.class))
        .withPropertyValues("oncely.store.engine=memory", "oncely.due-work.enabled=false",
            "oncely.resume-on-startup=false", "oncely.server.enabled=true",
            "oncely.server.store.path=" + receipts, "oncely.webhooks.store.path=" + receipts,
            "oncely.webhooks.sources.stripe.secrets=" + Signed.STRIPE_SECRET).run(context ->
            assertThat(StarterFailureAnalyzers.properties(context.getStartupFailure())
                .getDescription()).contains("oncely.webhooks.store.path is the receipt store"
                    + " file too (oncely.server.store.path)"));
  }

  @Test
  void an_inbox_file_another_process_holds_is_reported_with_the_webhooks_store_properties() {
    Path inbox = dir.resolve("held-inbox.db");
    try (IntentStore held = MapDbIntentStore.open(inbox)) {
      runner().withPropertyValues("oncely.webhooks.store.path=" + inbox,
          "oncely.webhooks.sources.stripe.secrets=" + Signed.STRIPE_SECRET).run(context -> {
            FailureAnalysis analysis = StarterFailureAnalyzers.stores(
                context.getStartupFailure(), new MockEnvironment()
                    .withProperty("oncely.webhooks.store.path", inbox.toString()));
            assertThat(analysis.getDescription())
                .startsWith("Oncely's inbox store could not be opened")
                .contains("oncely.webhooks.store.engine: (unset: mapdb)")
                .contains("oncely.webhooks.store.path: " + inbox);
            assertThat(analysis.getAction()).contains("its own oncely.webhooks.store.path");
          });
    }
  }

  static class UnknownSource {
    @WebhookHandler(source = "strpie")
    void any(InboxMessage message) {}
  }

  static class TwiceTheType {
    @WebhookHandler(source = "stripe", type = "charge.failed")
    void first(InboxMessage message) {}

    @WebhookHandler(source = "stripe", type = {"charge.refunded", "charge.failed"})
    void second(InboxMessage message) {}
  }

  static class TwoForEveryType {
    @WebhookHandler(source = "github")
    void first(InboxMessage message) {}

    @WebhookHandler(source = "github")
    void second(InboxMessage message) {}
  }

  static class WrongParameter {
    @WebhookHandler(source = "stripe")
    void any(String payload) {}
  }

  @WebhookHandler(source = "stripe")
  static class NotAHandler {}

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "UnknownSource | @WebhookHandler(source = \"strpie\") on",
      "UnknownSource | names a source that oncely.webhooks.sources does not configure"
          + " (configured: ",
      "TwiceTheType | type charge.failed of source stripe has two handlers",
      "TwoForEveryType | source github has two handlers without types",
      "WrongParameter | takes a java.lang.String; a handler method takes InboxMessage and"
          + " tools.jackson.databind.JsonNode parameters only",
      "NotAHandler | which is not an InboxHandler"})
  void a_handler_that_cannot_be_routed_fails_the_start_naming_it(String bean, String expected)
      throws Exception {
    Class<?> type = Class.forName(getClass().getName() + "$" + bean);
    sources().withBean(type).run(context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis = new OncelyWebhookHandlerFailureAnalyzer()
          .analyze(context.getStartupFailure());
      assertThat(analysis).as("analyzed " + context.getStartupFailure()).isNotNull();
      assertThat(analysis.getDescription()).startsWith("Oncely could not route the webhook"
          + " handlers").contains(expected).contains(type.getName());
      assertThat(analysis.getAction()).startsWith("Change ").contains(type.getName());
    });
  }

  @Test
  void every_listener_bean_hears_events_and_refusals_and_one_that_throws_stops_none() {
    List<WebhookRefusedException.Reason> refusals = new CopyOnWriteArrayList<>();
    sources().withBean("throwing", InboxListener.class, () -> e -> {
      throw new IllegalStateException("a broken listener");
    }).withBean("refusals", WebhookListener.class, () -> (s, r) -> refusals.add(r))
        .withBean("throwingRefusals", WebhookListener.class, () -> (s, r) -> {
          throw new IllegalStateException("a broken listener");
        }).run(context -> {
          WebhookReceiver receiver = context.getBean(WebhookReceiver.class);
          receiver.receive("stripe", Signed.stripe("whsec_forged", now(), "{\"id\":\"e\"}"));
          receiver.receive("stripe", Signed.stripe(Signed.STRIPE_SECRET, now(),
              "{\"id\":\"evt_1\"}"));

          assertThat(refusals).containsExactly(WebhookRefusedException.Reason.BAD_SIGNATURE);
          assertThat(context.getBean(Events.class).await(InboxEvent.Kind.ACCEPTED, "stripe"))
              .isNotNull();
        });
  }

  @Test
  void with_a_meter_registry_the_inbox_and_its_receiver_are_counted_and_gauged() {
    sources().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
      assertThat(context).hasSingleBean(OncelyInboxMetrics.class);
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      WebhookReceiver receiver = context.getBean(WebhookReceiver.class);
      receiver.receive("stripe", Signed.stripe(Signed.STRIPE_SECRET, now(), "{\"id\":\"evt_1\"}"));
      receiver.receive("stripe", Signed.stripe("whsec_forged", now(), "{\"id\":\"evt_2\"}"));

      assertThat(registry.get(OncelyInboxMetrics.MESSAGES).tag("kind", "accepted")
          .tag("source", "stripe").counter().count()).isEqualTo(1);
      assertThat(registry.get(OncelyInboxMetrics.REFUSED).tag("reason", "bad_signature")
          .tag("source", "stripe").counter().count()).isEqualTo(1);
      assertThat(registry.get(OncelyInboxMetrics.UNFINISHED).tag("state", "dead").gauge()
          .value()).isZero();
    });
    sources().run(context -> assertThat(context).doesNotHaveBean(OncelyInboxMetrics.class));
  }

  @Test
  void health_is_up_with_the_unfinished_messages_and_down_once_the_store_is_closed() {
    sources().withPropertyValues("oncely.webhooks.workers=0").run(context -> {
      context.getBean(WebhookReceiver.class).receive("stripe", Signed.stripe(
          Signed.STRIPE_SECRET, now(), "{\"id\":\"evt_1\"}"));
      HealthIndicator indicator = context.getBean("oncelyWebhooksHealthIndicator",
          HealthIndicator.class);

      Health up = indicator.health();
      assertThat(up.getStatus()).isEqualTo(Status.UP);
      assertThat(up.getDetails()).containsEntry("queued", 1).containsEntry("processing", 0)
          .containsEntry("dead", 0).containsKey("oldestQueuedAge")
          .doesNotContainKey("evt_1");
      context.getBean(OncelyInboxStore.class).close();
      assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
    });
    sources().withPropertyValues("management.health.oncely-webhooks.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("oncelyWebhooksHealthIndicator"));
  }

  @Test
  void the_purge_runs_with_the_context_and_removes_only_handled_messages_past_their_retention()
      throws Exception {
    sources().withBean(Calls.class).withBean(GitHubEvents.class)
        .withPropertyValues("oncely.webhooks.sources.github.retention=1h").run(context -> {
          assertThat(context.getBean(InboxPurge.class).isRunning()).isTrue();
          Inbox inbox = context.getBean(Inbox.class);
          WebhookReceiver receiver = context.getBean(WebhookReceiver.class);
          receiver.receive("github", Signed.github(Signed.GITHUB_SECRET, "d-1", "push", "{}"));
          context.getBean(Events.class).await(InboxEvent.Kind.HANDLED, "github");
          receiver.receive("stripe", Signed.stripe(Signed.STRIPE_SECRET, now(),
              "{\"id\":\"evt_1\"}"));
          Instant expired = inbox.get("github", "d-1").orElseThrow().expiresAt();

          Clock clock = Clock.fixed(expired.plusSeconds(1), ZoneOffset.UTC);
          assertThat(new InboxPurge(inbox, Duration.ofMinutes(5), Duration.ofMinutes(1), clock)
              .purgeNow()).isEqualTo(1);
          assertThat(inbox.get("github", "d-1")).isEmpty();
          assertThat(inbox.get("stripe", "evt_1")).describedAs("queued: never purged")
              .isPresent();
        });
    sources().withPropertyValues("oncely.webhooks.purge.enabled=false").run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(InboxPurge.class));
  }
}
