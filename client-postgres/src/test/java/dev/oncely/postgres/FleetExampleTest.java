package dev.oncely.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IntentOutcome;
import java.sql.Connection;
import java.sql.Statement;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;

/** The README's fleet example works as printed, against a real database and server. */
class FleetExampleTest {
  @Test
  void the_readme_fleet_example_places_the_order_and_pays_once() throws Exception {
    EffectServer effects = new EffectServer(5, 0, 0);
    org.postgresql.ds.PGSimpleDataSource empty = PostgresServer.shared().newDatabase();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(effects);
      server.start();
      try (Connection c = empty.getConnection(); Statement st = c.createStatement()) {
        st.execute("CREATE TABLE orders (id text PRIMARY KEY)");
      }
      IntentOutcome outcome = FleetExample.placeOrder(empty,
          server.url(Workload.PATH).toString(), "order-9");
      assertThat(outcome).isInstanceOf(IntentOutcome.Completed.class);
      assertThat(effects.effectsOf("order-9")).isEqualTo(1);
    }
  }
}
