package dev.oncely.spring.boot.webhooks;

import dev.oncely.spring.boot.OncelyProperties;
import dev.oncely.spring.boot.internal.OwnStore;
import dev.oncely.spring.boot.server.OncelyServerProperties;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The inbox store {@code oncely.webhooks.store.*} names when no other was configured: a MapDB
 * (the default) or SQLite file of its own at {@code oncely.webhooks.store.path}, or memory. Never
 * the client's intent store file ({@code oncely.store.path}) or the receipts' ({@code
 * oncely.server.store.path}): either is refused. Closed with the context, after the inbox.
 */
@Configuration(proxyBeanMethods = false)
class FileInboxStoreConfiguration {
  @Bean
  @ConditionalOnMissingBean(OncelyInboxStore.class)
  OncelyInboxStore oncelyInboxStore(OncelyWebhooksProperties properties,
      ObjectProvider<OncelyProperties> client, ObjectProvider<OncelyServerProperties> server) {
    List<OwnStore.Taken> taken = new ArrayList<>();
    OncelyProperties intents = client.getIfAvailable();
    if (intents != null) {
      taken.add(new OwnStore.Taken("oncely.store.path",
          OwnStore.normalized(intents.getStore().getPath()), "the client's intent store",
          "intents"));
    }
    OncelyServerProperties receipts = server.getIfAvailable();
    if (receipts != null && receipts.isEnabled()) {
      taken.add(new OwnStore.Taken("oncely.server.store.path",
          OwnStore.normalized(receipts.getStore().getPath()), "the receipt store", "receipts"));
    }
    return new OncelyInboxStore(InboxStores.own(properties).openFile(taken));
  }
}
