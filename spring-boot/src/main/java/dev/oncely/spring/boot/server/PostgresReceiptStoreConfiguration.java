package dev.oncely.spring.boot.server;

import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.server.ReceiptStore;
import dev.oncely.spring.boot.internal.OwnPostgresStore;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * The receipt store in PostgreSQL ({@code oncely.server.store.engine=postgres}), when {@code
 * oncely-client-postgres} is on the classpath: a {@link PostgresIntentStore} on the application's
 * DataSource, in the schema {@code oncely.server.store.schema} ({@code oncely_receipts} by
 * default; created and migrated at start-up unless {@code oncely.server.store.migrate=false}).
 *
 * <p>Receipts and intents cannot share a table (a client's due work would drive receipts as
 * intents), but they may share the database and one transaction: the schema of their own keeps
 * them apart from the client's PostgreSQL store, which uses the table its connections' search path
 * finds. A schema that is that one, while the starter's client store is PostgreSQL on the same
 * DataSource, is refused at start-up. With spring-jdbc on the classpath, {@link
 * TransactionalRecoveryPoint} writes recovery points in the app's transactions on this DataSource
 * ({@link PostgresTransactionalWrite}). Closing the store (with the context) releases this
 * instance's leases; the data source stays the app's.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "dev.oncely.postgres.PostgresIntentStore")
@ConditionalOnProperty(prefix = "oncely.server.store", name = "engine", havingValue = "postgres")
class PostgresReceiptStoreConfiguration implements ReceiptTransactions {
  private static final boolean JDBC = ClassUtils.isPresent(
      "org.springframework.jdbc.datasource.DataSourceUtils",
      PostgresReceiptStoreConfiguration.class.getClassLoader());

  /** The store this configuration built, and how to write in its DataSource's transactions. */
  private volatile @Nullable Built built;

  private record Built(ReceiptStore receipts, @Nullable TransactionalWrite write) {}

  @Bean
  @ConditionalOnMissingBean(ReceiptStore.class)
  ReceiptStore oncelyReceiptStore(ListableBeanFactory beans, ObjectProvider<DataSource> dataSources,
      OncelyServerProperties properties) {
    DataSource dataSource = dataSources.getIfUnique();
    PostgresIntentStore postgres = OwnPostgresStore.open(ReceiptStores.own(properties),
        "receipts", dataSource, beans, List.of());
    ReceiptStore receipts = ReceiptStore.on(postgres);
    built = new Built(receipts, JDBC ? new PostgresTransactionalWrite(postgres,
        Objects.requireNonNull(dataSource)) : null);
    return receipts;
  }

  @Override
  public @Nullable TransactionalWrite writeFor(ReceiptStore receipts) {
    Built b = built;
    return b != null && b.receipts == receipts ? b.write : null;
  }
}
