package dev.oncely.spring.boot.server;

import dev.oncely.client.InMemoryIntentStore;
import dev.oncely.persistence.StoreEngine;
import dev.oncely.server.ReceiptStore;
import dev.oncely.spring.boot.OncelyProperties;
import dev.oncely.spring.boot.OncelyPropertyException;
import java.nio.file.Path;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The receipt store {@code oncely.server.store.*} names when no other was configured: a MapDB
 * (the default) or SQLite file of its own at {@code oncely.server.store.path}, or memory. Never
 * the client's intent store: a path that is the client's {@code oncely.store.path} is refused.
 * Closed with the context, after the endpoints that use it.
 */
@Configuration(proxyBeanMethods = false)
class FileReceiptStoreConfiguration {
  @Bean
  @ConditionalOnMissingBean(ReceiptStore.class)
  ReceiptStore oncelyReceiptStore(OncelyServerProperties properties,
      ObjectProvider<OncelyProperties> client) {
    OncelyServerProperties.Store store = properties.getStore();
    OncelyServerProperties.Engine engine = store.getEngine();
    if (engine == OncelyServerProperties.Engine.POSTGRES) {
      throw new OncelyPropertyException("oncely.server.store.engine", "postgres", "is postgres,"
          + " which needs oncely-client-postgres on the classpath and a DataSource bean; found"
          + " none", null);
    }
    if (engine == OncelyServerProperties.Engine.MEMORY) {
      return ReceiptStore.on(new InMemoryIntentStore());
    }
    Path path = store.getPath().toAbsolutePath().normalize();
    OncelyProperties intents = client.getIfAvailable();
    if (intents != null
        && intents.getStore().getPath().toAbsolutePath().normalize().equals(path)) {
      throw new OncelyPropertyException("oncely.server.store.path", store.getPath(), "is the"
          + " client's intent store file too (oncely.store.path); receipts need a store of their"
          + " own", null);
    }
    StoreEngine files = engine == OncelyServerProperties.Engine.SQLITE ? StoreEngine.SQLITE
        : StoreEngine.MAPDB;
    return ReceiptStore.on(files.open(path));
  }
}
