package dev.oncely.spring.boot.server;

import dev.oncely.client.IntentStore;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.ReceiptStore;
import dev.oncely.spring.boot.OncelyPropertyException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The receipt store in PostgreSQL ({@code oncely.server.store.engine=postgres}), when {@code
 * oncely-client-postgres} is on the classpath: a {@link PostgresIntentStore} on the DataSource
 * bean {@code oncely.server.store.data-source} names, else the application's DataSource.
 *
 * <p>The store keeps its rows in table {@code oncely_intent} of the connection's schema, the
 * table the client's PostgreSQL store uses, and receipts and intents cannot share one table (the
 * client's due work would drive receipts; a receipt read would meet intents). So when the
 * starter's own client store is PostgreSQL on that same DataSource, the start is refused: give
 * the client another engine ({@code oncely.store.engine=mapdb}) or the receipts another database
 * or schema (a DataSource of their own whose connections use another {@code search_path}, named
 * by {@code oncely.server.store.data-source}). Closing it (with the context) releases this
 * instance's leases; the data source stays the app's.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "dev.oncely.postgres.PostgresIntentStore")
@ConditionalOnProperty(prefix = "oncely.server.store", name = "engine", havingValue = "postgres")
class PostgresReceiptStoreConfiguration {
  /** The bean name of the starter's client store (OncelyAutoConfiguration's stores). */
  private static final String CLIENT_STORE = "oncelyIntentStore";

  @Bean
  @ConditionalOnMissingBean(ReceiptStore.class)
  ReceiptStore oncelyReceiptStore(ListableBeanFactory beans, ObjectProvider<DataSource> dataSources,
      OncelyServerProperties properties) {
    OncelyServerProperties.Store store = properties.getStore();
    DataSource appDataSource = dataSources.getIfUnique();
    DataSource dataSource = store.getDataSource() == null ? appDataSource
        : named(beans, store.getDataSource());
    if (dataSource == null) {
      throw new OncelyPropertyException("oncely.server.store.engine", "postgres", "is postgres,"
          + " which needs a DataSource bean (or oncely.server.store.data-source naming one);"
          + " found none, or several without a primary one", null);
    }
    if (dataSource == appDataSource && clientStoreIsPostgres(beans)) {
      throw new OncelyPropertyException("oncely.server.store.engine", "postgres", "is postgres"
          + " on the DataSource where the client's intent store (oncely.store.engine, postgres"
          + " by default with a DataSource) keeps its intents, in the same oncely_intent table:"
          + " receipts and intents need stores of their own. Set oncely.store.engine=mapdb, or"
          + " give the receipts a DataSource of their own (another database or schema) named by"
          + " oncely.server.store.data-source", null);
    }
    return ReceiptStore.on(PostgresIntentStore.builder(dataSource).name("receipts")
        .migrate(store.isMigrate()).build());
  }

  private static DataSource named(ListableBeanFactory beans, String name) {
    try {
      return beans.getBean(name, DataSource.class);
    } catch (NoSuchBeanDefinitionException e) {
      throw new OncelyPropertyException("oncely.server.store.data-source", name,
          "names no DataSource bean", e);
    }
  }

  private static boolean clientStoreIsPostgres(ListableBeanFactory beans) {
    if (!beans.containsBean(CLIENT_STORE)) {
      return false;
    }
    @Nullable Class<?> type = beans.getType(CLIENT_STORE, false);
    return type != null && PostgresIntentStore.class.isAssignableFrom(type)
        && IntentStore.class.isAssignableFrom(type);
  }
}
