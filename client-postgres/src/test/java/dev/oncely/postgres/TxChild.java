package dev.oncely.postgres;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentRecord;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Child JVM: writes order {@code n} and its payment intent in one transaction, commits, prints
 * {@code COMMITTED}, and waits to be SIGKILLed before it drives anything.
 * Arguments: JDBC URL, server base URL, order number.
 */
public final class TxChild {
  private TxChild() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String base = args[1];
    int n = Integer.parseInt(args[2]);
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url);
    PostgresIntentStore store = PostgresIntentStore.builder(ds).owner("tx-child")
        .lease(Duration.ofSeconds(1)).build();
    IdempotentClient client = IdempotentClient.builder().store(store).build();
    IntentRecord record = client.newRecord(Workload.spec(base, n));
    try (Connection c = DriverManager.getConnection(url)) {
      c.setAutoCommit(false);
      try (PreparedStatement st = c.prepareStatement("INSERT INTO orders (id) VALUES (?)")) {
        st.setString(1, Workload.order(n));
        st.executeUpdate();
      }
      store.createInTransaction(c, record);
      c.commit();
    }
    System.out.println("COMMITTED");
    System.out.flush();
    ChildJvm.holdUntilStdinCloses();
  }
}
