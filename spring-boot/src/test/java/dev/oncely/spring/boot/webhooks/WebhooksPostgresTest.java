package dev.oncely.spring.boot.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.SpringTestFixtures;
import dev.oncely.server.inbox.Inbox;
import dev.oncely.server.inbox.InboxEvent;
import dev.oncely.server.inbox.InboxState;
import dev.oncely.server.webhook.WebhookReceiver;
import dev.oncely.spring.boot.OncelyAutoConfiguration;
import dev.oncely.spring.boot.StarterFailureAnalyzers;
import dev.oncely.spring.boot.server.OncelyServerAutoConfiguration;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * The inbox in PostgreSQL ({@code oncely.webhooks.store.engine=postgres}) on the application's
 * DataSource (client-postgres's test server): in a schema of its own, migrated at start-up, and
 * never in the schema where the client's intents or the receipts are kept.
 */
class WebhooksPostgresTest {
  private static WebApplicationContextRunner runner(DataSource database) {
    return new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class,
            OncelyServerAutoConfiguration.class, OncelyWebhooksAutoConfiguration.class))
        .withBean("dataSource", DataSource.class, () -> database)
        .withPropertyValues("oncely.due-work.enabled=false", "oncely.resume-on-startup=false",
            "oncely.webhooks.store.engine=postgres",
            "oncely.webhooks.sources.stripe.secrets=" + Signed.STRIPE_SECRET);
  }

  private static List<String> tablesIn(DataSource database, String schema) throws Exception {
    List<String> tables = new ArrayList<>();
    try (Connection c = database.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT table_name FROM information_schema.tables"
            + " WHERE table_schema = '" + schema + "'")) {
      while (rs.next()) {
        tables.add(rs.getString(1));
      }
    }
    return tables;
  }

  @Test
  void the_inbox_keeps_its_messages_in_a_schema_of_its_own_on_the_apps_data_source()
      throws Exception {
    DataSource database = SpringTestFixtures.freshDatabase();
    runner(database).withPropertyValues("oncely.webhooks.workers=0").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(OncelyInboxStore.class).intentStore())
          .isInstanceOf(PostgresIntentStore.class);
      assertThat(context.getBean(WebhookReceiver.class).receive("stripe", Signed.stripe(
          Signed.STRIPE_SECRET, Instant.now().getEpochSecond(), "{\"id\":\"evt_1\"}"))
          .status()).isEqualTo(200);
      assertThat(context.getBean(Inbox.class).get("stripe", "evt_1").orElseThrow().state())
          .isEqualTo(InboxState.QUEUED);
    });
    assertThat(tablesIn(database, "oncely_inbox")).isNotEmpty();
  }

  @Test
  void a_handler_runs_a_message_stored_in_postgres() throws Exception {
    runner(SpringTestFixtures.freshDatabase())
        .withBean(WebhooksAutoConfigurationTest.Events.class)
        .withBean(WebhooksAutoConfigurationTest.Calls.class)
        .withBean(WebhooksAutoConfigurationTest.StripeHandlers.class).run(context -> {
          context.getBean(WebhookReceiver.class).receive("stripe", Signed.stripe(
              Signed.STRIPE_SECRET, Instant.now().getEpochSecond(),
              "{\"id\":\"evt_1\",\"type\":\"charge.refunded\"}"));
          assertThat(context.getBean(WebhooksAutoConfigurationTest.Calls.class).next())
              .isEqualTo("charges charge.refunded");
          context.getBean(WebhooksAutoConfigurationTest.Events.class)
              .await(InboxEvent.Kind.HANDLED, "stripe");
        });
  }

  @Test
  void the_schema_of_the_receipts_or_of_the_clients_intents_is_refused() {
    DataSource database = SpringTestFixtures.freshDatabase();
    runner(database).withPropertyValues("oncely.store.engine=memory",
        "oncely.server.enabled=true", "oncely.server.store.engine=postgres",
        "oncely.webhooks.store.schema=oncely_receipts").run(context ->
            assertThat(StarterFailureAnalyzers.properties(context.getStartupFailure())
                .getDescription()).contains("oncely.webhooks.store.schema is the schema where"
                    + " the receipt store (oncely.server.store.schema) keeps its receipts on"
                    + " the same DataSource: inbox messages and receipts need tables of their"
                    + " own"));
    runner(database).withPropertyValues("oncely.store.engine=postgres",
        "oncely.webhooks.store.schema=public").run(context ->
            assertThat(StarterFailureAnalyzers.properties(context.getStartupFailure())
                .getDescription()).contains("oncely.webhooks.store.schema is the schema where"
                    + " the client's intent store").contains("inbox messages and intents need"
                    + " tables of their own"));
  }
}
