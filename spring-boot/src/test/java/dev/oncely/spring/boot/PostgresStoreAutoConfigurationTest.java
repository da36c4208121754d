package dev.oncely.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.MapDbIntentStore;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.SpringTestFixtures;
import dev.oncely.testing.IdempotentServer;
import java.nio.file.Path;
import javax.sql.DataSource;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * With a {@link DataSource} bean and {@code oncely-client-postgres} on the classpath the store is
 * PostgreSQL on that data source (schema applied at start-up); without the module, or with
 * another engine named, it is the file store. Runs on client-postgres's test server.
 */
class PostgresStoreAutoConfigurationTest {
  @TempDir
  Path dir;

  private ApplicationContextRunner runner(DataSource dataSource) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class))
        .withBean(DataSource.class, () -> dataSource)
        .withPropertyValues("oncely.store.path=" + dir.resolve("intents.db"),
            "oncely.due-work.enabled=false");
  }

  @Test
  void a_data_source_gives_a_postgres_store_that_records_intents() throws Exception {
    IdempotentServer kit = IdempotentServer.builder().build();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(kit);
      server.start();
      runner(SpringTestFixtures.freshDatabase()).run(context -> {
        assertThat(context.getBean(IntentStore.class)).isInstanceOf(PostgresIntentStore.class);
        IdempotentClient client = context.getBean(IdempotentClient.class);
        assertThat(client.execute(IntentSpec.builder().operation("create-payment").scope("shop")
            .businessId("order-1").post(server.url("/payments").toString())
            .jsonBody("{\"order\":\"order-1\"}").build()).state())
            .isEqualTo(IntentState.COMPLETED);
        assertThat(context.getBean(IntentStore.class)
            .findByBusinessId("shop", "create-payment", "order-1")).isPresent();
      });
      assertThat(kit.ledger().size()).isEqualTo(1);
    }
  }

  @Test
  void without_the_postgres_module_or_with_another_engine_named_the_store_is_a_file() {
    DataSource dataSource = SpringTestFixtures.freshDatabase();
    runner(dataSource).withClassLoader(new FilteredClassLoader(PostgresIntentStore.class))
        .run(context -> assertThat(context.getBean(IntentStore.class))
            .isInstanceOf(MapDbIntentStore.class));
    runner(dataSource).withPropertyValues("oncely.store.engine=mapdb")
        .run(context -> assertThat(context.getBean(IntentStore.class))
            .isInstanceOf(MapDbIntentStore.class));
  }

  @Test
  void engine_postgres_without_a_data_source_fails_the_start_with_a_clear_message() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OncelyAutoConfiguration.class))
        .withPropertyValues("oncely.store.engine=postgres")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .rootCause().isInstanceOfSatisfying(OncelyPropertyException.class, e -> {
              assertThat(e.property()).isEqualTo("oncely.store.engine");
              assertThat(e).hasMessageContaining("oncely.store.engine is postgres, which needs"
                  + " oncely-client-postgres on the classpath and a DataSource bean");
            }));
  }
}
