package dev.oncely.spring.boot;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.client.IntentStore;
import dev.oncely.persistence.StoreEngine;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The file store ({@code oncely.store.engine} mapdb, the default, or sqlite, at {@code
 * oncely.store.path}) or the in-memory one, when no other store was configured.
 */
@Configuration(proxyBeanMethods = false)
class FileStoreConfiguration {
  @Bean
  @ConditionalOnMissingBean(IntentStore.class)
  IntentStore oncelyIntentStore(OncelyProperties properties) {
    OncelyProperties.Engine engine = properties.getStore().getEngine();
    if (engine == null) {
      engine = OncelyProperties.Engine.MAPDB;
    }
    return switch (engine) {
      case MAPDB -> StoreEngine.MAPDB.open(properties.getStore().getPath().toAbsolutePath());
      case SQLITE -> StoreEngine.SQLITE.open(properties.getStore().getPath().toAbsolutePath());
      case MEMORY -> new InMemoryIntentStore();
      case POSTGRES -> throw new OncelyPropertyException("oncely.store.engine", engine,
          "is postgres, which needs oncely-client-postgres on the classpath and a DataSource"
          + " bean; found none", null);
    };
  }
}
