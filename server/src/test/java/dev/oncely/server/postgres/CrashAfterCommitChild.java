package dev.oncely.server.postgres;

import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ServerPostgres;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.ReceiptStore;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Child JVM: the server instance {@code instance-a} handles one order request; its handler commits
 * the order row with the receipt's recovery point, prints {@code COMMITTED}, and waits to be
 * SIGKILLed before its answer is stored. Arguments: JDBC URL, key, order id, amount.
 */
public final class CrashAfterCommitChild {
  private CrashAfterCommitChild() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(args[0]);
    PostgresIntentStore receiptStore = PostgresIntentStore.builder(dataSource)
        .schema(ServerPostgres.RECEIPTS).owner("instance-a").build();
    IdempotentEndpoints endpoints = IdempotentEndpoints.builder(ReceiptStore.on(receiptStore))
        .build();
    Orders orders = new Orders(dataSource, receiptStore).afterCommit((context, connection) -> {
      System.out.println("COMMITTED");
      System.out.flush();
      ServerPostgres.Child.holdUntilStdinCloses();
    });
    endpoints.handle(Orders.request(args[1], args[2], Integer.parseInt(args[3])), Orders.POLICY,
        orders);
  }
}
