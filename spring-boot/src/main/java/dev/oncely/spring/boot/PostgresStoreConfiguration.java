package dev.oncely.spring.boot;

import dev.oncely.client.IntentStore;
import dev.oncely.postgres.PostgresIntentStore;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The store on the application's {@link DataSource}, when {@code oncely-client-postgres} is on the
 * classpath and {@code oncely.store.engine} is unset or {@code postgres}. Closing it (with the
 * context) releases this instance's leases; the data source stays the app's.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "dev.oncely.postgres.PostgresIntentStore")
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = "oncely.store", name = "engine", havingValue = "postgres",
    matchIfMissing = true)
class PostgresStoreConfiguration {
  @Bean
  @ConditionalOnMissingBean(IntentStore.class)
  PostgresIntentStore oncelyIntentStore(DataSource dataSource, OncelyProperties properties) {
    PostgresIntentStore.Builder store = PostgresIntentStore.builder(dataSource)
        .migrate(properties.getStore().isMigrate());
    FromProperties.set("oncely.store.lease", "lease", properties.getStore().getLease(),
        store::lease);
    return store.build();
  }
}
