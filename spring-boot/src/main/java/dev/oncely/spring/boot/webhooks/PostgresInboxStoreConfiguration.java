package dev.oncely.spring.boot.webhooks;

import dev.oncely.spring.boot.internal.OwnPostgresStore;
import dev.oncely.spring.boot.internal.OwnStore;
import dev.oncely.spring.boot.server.OncelyServerProperties;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The inbox store in PostgreSQL ({@code oncely.webhooks.store.engine=postgres}), when {@code
 * oncely-client-postgres} is on the classpath: a {@code PostgresIntentStore} on the application's
 * DataSource, in the schema {@code oncely.webhooks.store.schema} ({@code oncely_inbox} by default;
 * created and migrated at start-up unless {@code oncely.webhooks.store.migrate=false}). Every
 * instance of a fleet claims due messages from that one table; the revision fences them. A schema
 * where the client's intents or the receipts are kept is refused at start-up.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "dev.oncely.postgres.PostgresIntentStore")
@ConditionalOnProperty(prefix = "oncely.webhooks.store", name = "engine",
    havingValue = "postgres")
class PostgresInboxStoreConfiguration {
  @Bean
  @ConditionalOnMissingBean(OncelyInboxStore.class)
  OncelyInboxStore oncelyInboxStore(ListableBeanFactory beans,
      ObjectProvider<DataSource> dataSources, OncelyWebhooksProperties properties,
      ObjectProvider<OncelyServerProperties> server) {
    List<OwnStore.Taken> taken = new ArrayList<>();
    OncelyServerProperties receipts = server.getIfAvailable();
    if (receipts != null && receipts.isEnabled()
        && receipts.getStore().getEngine() == OncelyServerProperties.Engine.POSTGRES) {
      taken.add(new OwnStore.Taken("oncely.server.store.schema", receipts.getStore().getSchema(),
          "the receipt store", "receipts"));
    }
    return new OncelyInboxStore(OwnPostgresStore.open(InboxStores.own(properties), "inbox",
        dataSources.getIfUnique(), beans, taken));
  }
}
