package dev.oncely.spring.boot.internal;

import dev.oncely.client.StoreException;
import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.spring.boot.OncelyPropertyException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Opens an {@link OwnStore} in PostgreSQL: a {@link PostgresIntentStore} on the application's
 * DataSource in the store's schema, refused when that schema is where the starter's client store
 * keeps its intents (the schema the connections' search path finds, when the client store is
 * PostgreSQL) or another own store's. Stores cannot share a table (a client's due work would drive
 * receipts or inbox messages as intents); they may share the database and a transaction. Loaded
 * only when {@code oncely-client-postgres} is on the classpath.
 */
public final class OwnPostgresStore {
  /** The bean name of the starter's client store (OncelyAutoConfiguration's stores). */
  private static final String CLIENT_STORE = "oncelyIntentStore";

  private OwnPostgresStore() {}

  /**
   * Opens {@code store} on {@code dataSource}.
   *
   * @param store what the properties name
   * @param name the store's name in its leases and logs ({@code receipts})
   * @param dataSource the application's unique DataSource, or null when it has none (or several
   *     without a primary one)
   * @param beans the application's beans, to find the starter's client store
   * @param taken the schemas other own stores use
   * @throws OncelyPropertyException if there is no DataSource, the schema is refused by the
   *     store, or it is taken
   * @throws StoreException if the search path's schema cannot be read
   */
  public static PostgresIntentStore open(OwnStore store, String name,
      @Nullable DataSource dataSource, ListableBeanFactory beans, List<OwnStore.Taken> taken) {
    String prefix = store.prefix();
    if (dataSource == null) {
      throw new OncelyPropertyException(prefix + ".engine", "postgres", "is postgres, which"
          + " needs a DataSource bean; found none, or several without a primary one", null);
    }
    PostgresIntentStore.Builder builder = PostgresIntentStore.builder(dataSource).name(name)
        .migrate(store.migrate());
    try {
      builder.schema(store.schema());
    } catch (IllegalArgumentException | NullPointerException e) {
      String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new OncelyPropertyException(prefix + ".schema", store.schema(),
          message.startsWith("schema ") ? message.substring("schema ".length())
              : "is refused: " + message, e);
    }
    List<OwnStore.Taken> all = new ArrayList<>();
    if (clientStoreIsPostgres(beans)) {
      String searchPath = searchPathSchema(dataSource);
      if (searchPath != null) {
        all.add(new OwnStore.Taken("oncely.store.engine, postgres by default with a DataSource",
            searchPath, "the client's intent store", "intents"));
      }
    }
    all.addAll(taken);
    for (OwnStore.Taken t : all) {
      if (store.schema().equals(t.location())) {
        throw new OncelyPropertyException(prefix + ".schema", store.schema(), "is the schema"
            + " where " + t.whose() + " (" + t.property() + ") keeps its " + t.theirs()
            + " on the same DataSource: " + store.kept() + " and " + t.theirs()
            + " need tables of their own. Name another schema", null);
      }
    }
    return builder.build();
  }

  private static boolean clientStoreIsPostgres(ListableBeanFactory beans) {
    if (!beans.containsBean(CLIENT_STORE)) {
      return false;
    }
    Class<?> type = beans.getType(CLIENT_STORE, false);
    return type != null && PostgresIntentStore.class.isAssignableFrom(type);
  }

  /** The schema unqualified table names resolve to on {@code dataSource}'s connections. */
  private static @Nullable String searchPathSchema(DataSource dataSource) {
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT current_schema()")) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      throw new StoreException("reading the search path's schema failed (SQLState "
          + e.getSQLState() + ")", e);
    }
  }
}
