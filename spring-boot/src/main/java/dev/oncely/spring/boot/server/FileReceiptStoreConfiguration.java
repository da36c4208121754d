package dev.oncely.spring.boot.server;

import dev.oncely.server.ReceiptStore;
import dev.oncely.spring.boot.OncelyProperties;
import dev.oncely.spring.boot.internal.OwnStore;
import java.util.ArrayList;
import java.util.List;
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
    List<OwnStore.Taken> taken = new ArrayList<>();
    OncelyProperties intents = client.getIfAvailable();
    if (intents != null) {
      taken.add(new OwnStore.Taken("oncely.store.path",
          OwnStore.normalized(intents.getStore().getPath()), "the client's intent store",
          "intents"));
    }
    return ReceiptStore.on(ReceiptStores.own(properties).openFile(taken));
  }
}
