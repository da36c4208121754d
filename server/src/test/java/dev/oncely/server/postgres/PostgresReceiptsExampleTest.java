package dev.oncely.server.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.postgres.ServerPostgres;
import dev.oncely.server.InboundRequest;
import dev.oncely.server.ServerAnswer;
import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import java.nio.charset.StandardCharsets;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;

/** The example in {@code docs/server.md} works as printed. */
class PostgresReceiptsExampleTest {
  @Test
  void the_example_commits_one_order_charges_once_under_one_key_and_replays() throws Exception {
    IdempotentServer psp = IdempotentServer.builder().intentOf(IdempotentServer.jsonField("order"))
        .faults(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build()).build();
    try (ServerPostgres db = ServerPostgres.create(); MockWebServer server = new MockWebServer()) {
      server.setDispatcher(psp);
      server.start();
      PostgresReceiptsExample.createTable(db.pool());
      try (PostgresReceiptsExample app = new PostgresReceiptsExample(db.pool(),
          server.url("/").toString().replaceAll("/$", ""))) {
        InboundRequest request = Orders.request("k1", "o-1", 1200);
        ServerAnswer first = app.endpoints().handle(request,
            PostgresReceiptsExample.CREATE_ORDER, app);
        assertThat(first.status()).isEqualTo(201);
        assertThat(new String(first.body(), StandardCharsets.UTF_8))
            .isEqualTo("{\"order\":\"o-1\",\"status\":\"paid\"}");
        ServerAnswer repeat = app.endpoints().handle(request,
            PostgresReceiptsExample.CREATE_ORDER, app);
        assertThat(repeat.header("Idempotent-Replayed")).isEqualTo("true");
      }
      assertThat(PostgresReceiptsExample.orders(db.pool())).isEqualTo(1);
      assertThat(psp.ledger().countOf("o-1")).isEqualTo(1);
      assertThat(psp.requests().all()).as("the lost answer was asked for again under one key")
          .hasSize(2).extracting(r -> r.header("Idempotency-Key")).containsOnly(
              psp.requests().all().get(0).header("Idempotency-Key"));
    }
  }
}
