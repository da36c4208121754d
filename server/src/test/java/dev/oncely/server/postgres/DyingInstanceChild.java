package dev.oncely.server.postgres;

import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ServerPostgres;
import dev.oncely.server.IdempotentEndpoints;
import dev.oncely.server.ReceiptStore;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Child JVM: the server instance {@code instance-a} handles one order request and waits to be
 * SIGKILLed at one point of its handler. Mode {@code after-commit}: the order row and the
 * recovery point are committed, it prints {@code COMMITTED}; mode {@code before-commit}: both are
 * written in the open transaction (the receipt's row locked), it prints {@code WRITTEN}.
 * Arguments: JDBC URL, mode, key, order id, amount.
 */
public final class DyingInstanceChild {
  private DyingInstanceChild() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(args[0]);
    PostgresIntentStore receiptStore = PostgresIntentStore.builder(dataSource)
        .schema(ServerPostgres.RECEIPTS).owner("instance-a").build();
    IdempotentEndpoints endpoints = IdempotentEndpoints.builder(ReceiptStore.on(receiptStore))
        .build();
    Orders.Step die = (context, connection) -> {
      System.out.println(args[1].equals("after-commit") ? "COMMITTED" : "WRITTEN");
      System.out.flush();
      ServerPostgres.Child.holdUntilStdinCloses();
    };
    Orders orders = new Orders(dataSource, receiptStore);
    if (args[1].equals("after-commit")) {
      orders.afterCommit(die);
    } else {
      orders.beforeCommit(die);
    }
    endpoints.handle(Orders.request(args[2], args[3], Integer.parseInt(args[4])), Orders.POLICY,
        orders);
  }
}
