package dev.oncely.server.postgres;

import dev.oncely.postgres.PostgresIntentStore;
import dev.oncely.postgres.ServerPostgres;
import dev.oncely.server.EndpointHandler;
import dev.oncely.server.EndpointPolicy;
import dev.oncely.server.HandlerContext;
import dev.oncely.server.InboundRequest;
import dev.oncely.server.ServerAnswer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The tests' app: {@code POST /orders} with {@code {"order":"o-1","amount":1200}} inserts one
 * order row and records the receipt's recovery point (reference: the order id) in one
 * transaction, then answers {@code 201} rendered from the row. Faults hook in before the recovery
 * point, before the commit and after it.
 */
final class Orders implements EndpointHandler {
  static final EndpointPolicy POLICY = EndpointPolicy.builder("orders.create")
      .lease(Duration.ofSeconds(30)).build();
  private static final Pattern ORDER = Pattern.compile("\"order\":\"([^\"]+)\"");
  private static final Pattern AMOUNT = Pattern.compile("\"amount\":(\\d+)");

  /** What the handler does at one point of its run; may throw. */
  @FunctionalInterface
  interface Step {
    void run(HandlerContext context, Connection connection) throws Exception;
  }

  /** One row of the business table. */
  record Order(String id, int amount, String chargeKey) {}

  private final DataSource dataSource;
  private final PostgresIntentStore receipts;
  private final AtomicInteger runs = new AtomicInteger();
  private volatile Step beforeRecoveryPoint = (context, connection) -> {};
  private volatile Step beforeCommit = (context, connection) -> {};
  private volatile Step afterCommit = (context, connection) -> {};

  Orders(DataSource dataSource, PostgresIntentStore receipts) {
    this.dataSource = dataSource;
    this.receipts = receipts;
  }

  static void createTable(ServerPostgres db) {
    db.execute("CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, amount integer NOT NULL,"
        + " charge_key text)");
  }

  Orders beforeRecoveryPoint(Step step) {
    this.beforeRecoveryPoint = step;
    return this;
  }

  Orders beforeCommit(Step step) {
    this.beforeCommit = step;
    return this;
  }

  Orders afterCommit(Step step) {
    this.afterCommit = step;
    return this;
  }

  /** How many times the handler started. */
  int runs() {
    return runs.get();
  }

  @Override
  public ServerAnswer handle(HandlerContext context) throws Exception {
    runs.incrementAndGet();
    String id = field(ORDER, context.request().body());
    int amount = Integer.parseInt(field(AMOUNT, context.request().body()));
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      insert(c, new Order(id, amount, null));
      beforeRecoveryPoint.run(context, c);
      try (RecoveryPoint point = PostgresReceipts.effectsCommittedIn(c, receipts, context, id)) {
        beforeCommit.run(context, c);
        c.commit();
        point.committed();
      }
      afterCommit.run(context, c);
    }
    return created(find(dataSource, id).orElseThrow());
  }

  static InboundRequest request(String key, String order, int amount) {
    return InboundRequest.builder("POST", "/orders")
        .header("Idempotency-Key", "\"" + key + "\"")
        .header("Content-Type", "application/json")
        .body(("{\"order\":\"" + order + "\",\"amount\":" + amount + "}")
            .getBytes(StandardCharsets.UTF_8))
        .principal("alice")
        .build();
  }

  static ServerAnswer created(Order order) {
    return ServerAnswer.json(201, "{\"order\":\"" + order.id() + "\",\"amount\":" + order.amount()
        + "}");
  }

  static void insert(Connection c, Order order) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(
        "INSERT INTO orders (id, amount, charge_key) VALUES (?, ?, ?)")) {
      st.setString(1, order.id());
      st.setInt(2, order.amount());
      st.setString(3, order.chargeKey());
      st.executeUpdate();
    }
  }

  static Optional<Order> find(DataSource dataSource, String id) throws SQLException {
    try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(
        "SELECT id, amount, charge_key FROM orders WHERE id = ?")) {
      st.setString(1, id);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(new Order(rs.getString(1), rs.getInt(2), rs.getString(3)))
            : Optional.empty();
      }
    }
  }

  static int count(DataSource dataSource) throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM orders")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static String field(Pattern pattern, byte[] body) {
    Matcher m = pattern.matcher(new String(body, StandardCharsets.UTF_8));
    if (!m.find()) {
      throw new IllegalArgumentException("the body has no " + pattern);
    }
    return m.group(1);
  }
}
