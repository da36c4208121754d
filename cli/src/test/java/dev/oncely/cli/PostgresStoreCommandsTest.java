package dev.oncely.cli;

import static dev.oncely.cli.Records.BODY;
import static dev.oncely.cli.Records.NOW;
import static dev.oncely.cli.Records.record;
import static dev.oncely.cli.Records.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.oncely.client.IdempotentClient;
import dev.oncely.client.IntentId;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentSpec;
import dev.oncely.client.IntentState;
import dev.oncely.client.RetryPolicy;
import dev.oncely.client.spi.StoreEncryption;
import dev.oncely.postgres.CliPostgres;
import dev.oncely.postgres.PostgresIntentStore;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * list, show, resolve and retry on a real PostgreSQL store (client-postgres's test fixture, one
 * server for the class, a fresh database per test) while an app instance keeps the store open,
 * and the typed errors of a database store: unreachable, refused login, missing database, table
 * or schema, wrong key, a password on the command line.
 */
class PostgresStoreCommandsTest {
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  @TempDir Path dir;

  private CliPostgres db;
  private PostgresIntentStore app;

  @BeforeEach
  void database() {
    db = CliPostgres.migrated();
    app = PostgresIntentStore.builder(db.dataSource()).owner("app-1").build();
  }

  @AfterEach
  void closeApp() {
    app.close();
  }

  private String url() {
    return "postgresql://postgres@127.0.0.1:" + db.port() + "/" + db.database();
  }

  private CliRun cli(String... args) {
    return CliRun.of(CLOCK, args);
  }

  private IntentRecord reread(IntentId id) {
    return app.get(id).orElseThrow();
  }

  private String leaseOwner(IntentId id) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement st = c.prepareStatement(
            "SELECT lease_owner FROM oncely_intent WHERE lookup = ?")) {
      st.setBytes(1, dev.oncely.client.spi.RecordCodec.lookupKey(id));
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  @Test
  void list_show_resolve_and_retry_work_on_a_postgres_store_while_the_app_keeps_it_open()
      throws Exception {
    IntentRecord pending = record("pg-pending", IntentState.PENDING, Duration.ofMinutes(42))
        .reason("TIMEOUT_AFTER_SEND: no answer within 10s").build();
    IntentRecord doubt = record("pg-doubt", IntentState.NEEDS_RECONCILIATION, Duration.ofHours(3))
        .reason("older than the server's key retention").build();
    IntentRecord done = record("pg-done", IntentState.COMPLETED, Duration.ofMinutes(5))
        .lastResponse(response(201, "{}")).build();
    app.create(pending);
    app.create(doubt);
    app.create(done);

    CliRun list = cli("list", "--store", url());
    assertThat(list.exitCode()).as(list.toString()).isZero();
    assertThat(list.out()).contains(doubt.id().safeKey(), pending.id().safeKey(),
        "NEEDS_RECONCILIATION", "order-pg-pending", "2 unfinished, 1 need reconciliation")
        .doesNotContain(done.id().safeKey());

    CliRun show = cli("show", pending.id().safeKey(), "--store", url(), "--engine", "postgresql");
    assertThat(show.exitCode()).as(show.toString()).isZero();
    assertThat(show.out()).contains("PENDING", "order-pg-pending", "<redacted>")
        .doesNotContain("4242-secret", "\nkey:");
    CliRun reveal = cli("show", pending.id().safeKey(), "--store", url(), "--reveal");
    assertThat(reveal.out()).contains(BODY, "pg-pending");

    CliRun resolve = cli("resolve", doubt.id().safeKey(), "--store", url(), "--as", "completed",
        "--author", "alice", "--note", "charge found in the PSP dashboard");
    assertThat(resolve.exitCode()).as(resolve.toString()).isZero();
    IntentRecord resolved = reread(doubt.id());
    assertThat(resolved.state()).isEqualTo(IntentState.COMPLETED);
    assertThat(resolved.revision()).isEqualTo(doubt.revision() + 1);
    assertThat(resolved.notes()).extracting(IntentRecord.Note::author, IntentRecord.Note::text)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("alice",
            "resolved as COMPLETED: charge found in the PSP dashboard"));
    assertThat(resolved.body()).isEqualTo(doubt.body());
    assertThat(leaseOwner(doubt.id())).isNull();

    CliRun retry = cli("retry", pending.id().safeKey(), "--store", url(), "--author", "bob",
        "--note", "customer asked again");
    assertThat(retry.exitCode()).as(retry.toString()).isZero();
    IntentRecord due = reread(pending.id());
    assertThat(due.state()).isEqualTo(IntentState.PENDING);
    assertThat(due.nextAttemptAt()).isEqualTo(NOW);
    assertThat(due.notes()).extracting(IntentRecord.Note::text)
        .containsExactly("marked due now: customer asked again");
  }

  @Test
  void an_operators_resolve_fences_out_the_apps_stale_write_so_the_verdict_is_not_overwritten() {
    IntentRecord pending = record("pg-stale", IntentState.PENDING, Duration.ofMinutes(9)).build();
    app.create(pending);
    IntentRecord readByApp = reread(pending.id());

    CliRun resolve = cli("resolve", pending.id().safeKey(), "--store", url(), "--as", "rejected",
        "--note", "customer cancelled; PSP shows no charge");
    assertThat(resolve.exitCode()).as(resolve.toString()).isZero();

    boolean stored = app.compareAndSet(readByApp, readByApp.successor()
        .state(IntentState.COMPLETED).lastResponse(response(201, "{}")).build());
    assertThat(stored).isFalse();
    IntentRecord after = reread(pending.id());
    assertThat(after.state()).isEqualTo(IntentState.REJECTED);
    assertThat(after.notes()).hasSize(1);
  }

  @Test
  void resolve_and_retry_are_refused_while_another_instance_holds_a_live_lease_and_write_nothing() {
    IntentRecord driving = record("pg-leased", IntentState.IN_FLIGHT, Duration.ofSeconds(3))
        .build();
    app.create(driving);
    IntentRecord before = reread(driving.id());

    CliRun resolve = cli("resolve", driving.id().safeKey(), "--store", url(), "--as", "rejected",
        "--note", "looks stuck");
    assertThat(resolve.exitCode()).as(resolve.toString()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(resolve.err()).contains("is being driven by app-1", "nothing was written");
    CliRun retry = cli("retry", driving.id().safeKey(), "--store", url());
    assertThat(retry.exitCode()).as(retry.toString()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(retry.err()).contains("is being driven by app-1");

    assertThat(reread(driving.id())).isEqualTo(before);
  }

  @Test
  void show_finds_a_finished_record_by_key_hash_or_business_id_alone_and_resolve_refuses_it() {
    IntentRecord done = record("pg-finished", IntentState.COMPLETED, Duration.ofMinutes(5))
        .lastResponse(response(201, "{\"id\":\"pay_1\"}")).build();
    app.create(done);
    app.create(record("pg-other", IntentState.PENDING, Duration.ofMinutes(1)).build());

    CliRun byHash = cli("show", done.id().safeKey(), "--store", url());
    assertThat(byHash.exitCode()).as(byHash.toString()).isZero();
    assertThat(byHash.out()).contains("COMPLETED", "order-pg-finished", "last response:   201");
    CliRun byPrefix = cli("show", done.id().safeKey().substring(0, 8), "--store", url(),
        "--scope", "tenant-7", "--operation", "create-payment");
    assertThat(byPrefix.exitCode()).as(byPrefix.toString()).isZero();
    assertThat(byPrefix.out()).contains(done.id().safeKey());
    CliRun byBusinessId = cli("show", "--business-id", "order-pg-finished", "--store", url());
    assertThat(byBusinessId.exitCode()).as(byBusinessId.toString()).isZero();
    assertThat(byBusinessId.out()).contains(done.id().safeKey(), "COMPLETED");

    CliRun resolve = cli("resolve", done.id().safeKey(), "--store", url(), "--as", "rejected",
        "--note", "second thoughts");
    assertThat(resolve.exitCode()).isEqualTo(OncelyCli.EXIT_REFUSED);
    assertThat(resolve.err()).contains("already COMPLETED");
    assertThat(reread(done.id())).isEqualTo(done);

    CliRun none = cli("show", "k#" + "0".repeat(12), "--store", url());
    assertThat(none.exitCode()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(none.err()).contains("no record matches", "unfinished or finished");
  }

  @Test
  void retry_drive_on_postgres_resends_the_stored_key_and_body_and_completes() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.start();
      server.enqueue(new MockResponse.Builder()
          .onResponseStart(SocketEffect.Stall.INSTANCE).build());
      IntentId id;
      try (IdempotentClient client = IdempotentClient.builder()
          .store(app)
          .okHttpClient(new OkHttpClient.Builder().readTimeout(Duration.ofMillis(300)).build())
          .retryPolicy(RetryPolicy.builder().maxAttempts(1).build())
          .build()) {
        IntentOutcome outcome = client.execute(IntentSpec.builder()
            .operation("create-payment").scope("tenant-7").businessId("order-pg-9")
            .post(server.url("/payments").toString())
            .body("{\"amount\":9}".getBytes(StandardCharsets.UTF_8), "application/json")
            .build());
        assertThat(outcome).isInstanceOf(IntentOutcome.Pending.class);
        id = outcome.id();
      }
      RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);
      server.enqueue(new MockResponse.Builder().code(201).body("{\"id\":\"pay_9\"}").build());

      CliRun run = CliRun.of(Clock.systemUTC(), "retry", "--business-id", "order-pg-9",
          "--store", url(), "--drive", "--author", "ops");

      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.out()).contains("driven, now COMPLETED", "last answer 201");
      RecordedRequest resent = server.takeRequest(5, TimeUnit.SECONDS);
      assertThat(resent.getHeaders().get("Idempotency-Key"))
          .isEqualTo(first.getHeaders().get("Idempotency-Key"));
      assertThat(resent.getBody().utf8()).isEqualTo("{\"amount\":9}");
      assertThat(reread(id).state()).isEqualTo(IntentState.COMPLETED);
      assertThat(leaseOwner(id)).isNull();
    }
  }

  @Test
  void an_unreachable_server_is_a_typed_error_naming_host_and_port() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      closed = s.getLocalPort();
    }

    CliRun run = cli("list", "--store", "postgresql://postgres@127.0.0.1:" + closed + "/x");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(run.err()).contains("cannot reach the store", "127.0.0.1:" + closed);
  }

  @Test
  void a_wrong_or_missing_password_is_a_refused_login_and_the_password_comes_only_from_env_or_an_owner_only_file()
      throws Exception {
    db.requirePassword("cli_pw", "right-pw-7");
    db.execute("GRANT SELECT, UPDATE ON oncely_intent TO cli_pw");
    db.execute("GRANT SELECT ON oncely_schema_version, oncely_meta TO cli_pw");
    app.create(record("pg-login", IntentState.PENDING, Duration.ofMinutes(2)).build());
    String asCliPw = "postgresql://cli_pw@127.0.0.1:" + db.port() + "/" + db.database();

    CliRun wrong = CliRun.of(CLOCK, Map.of("PGPASSWORD", "wrong-pw-3"), "list", "--store", asCliPw);
    assertThat(wrong.exitCode()).as(wrong.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(wrong.err()).contains("refused the login", "cli_pw").doesNotContain("wrong-pw-3");
    CliRun missing = cli("list", "--store", asCliPw);
    assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(missing.err()).contains("refused the login");

    CliRun fromEnv = CliRun.of(CLOCK, Map.of("PGPASSWORD", "right-pw-7"), "list", "--store",
        asCliPw);
    assertThat(fromEnv.exitCode()).as(fromEnv.toString()).isZero();
    assertThat(fromEnv.out()).contains("order-pg-login");
    CliRun fromNamedEnv = CliRun.of(CLOCK, Map.of("SHOP_DB_PW", "right-pw-7"), "list",
        "--store", asCliPw, "--password-env", "SHOP_DB_PW");
    assertThat(fromNamedEnv.exitCode()).as(fromNamedEnv.toString()).isZero();

    Path file = Files.writeString(dir.resolve("pw"), "right-pw-7\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    CliRun readable = cli("list", "--store", asCliPw, "--password-file", file.toString());
    assertThat(readable.exitCode()).as(readable.toString()).isEqualTo(OncelyCli.EXIT_USAGE);
    assertThat(readable.err()).contains("chmod 600").doesNotContain("right-pw-7");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    CliRun fromFile = cli("list", "--store", asCliPw, "--password-file", file.toString());
    assertThat(fromFile.exitCode()).as(fromFile.toString()).isZero();
    assertThat(fromFile.out()).contains("order-pg-login");
  }

  @Test
  void a_password_in_the_store_url_is_refused_before_connecting_and_never_printed() {
    for (String location : new String[] {
        "postgresql://ops:hunter2-pw@127.0.0.1:1/db",
        "jdbc:postgresql://127.0.0.1:1/db?user=ops&password=hunter2-pw",
        "postgres://127.0.0.1:1/db?sslpassword=hunter2-pw"}) {
      CliRun run = cli("list", "--store", location);
      assertThat(run.exitCode()).as(run.toString()).isEqualTo(OncelyCli.EXIT_USAGE);
      assertThat(run.err()).contains("must not carry a password", "PGPASSWORD")
          .doesNotContain("hunter2-pw");
    }
  }

  @Test
  void a_role_without_rights_on_the_table_is_a_refused_login() {
    db.execute("CREATE ROLE cli_norights LOGIN");

    CliRun run = cli("list", "--store",
        "postgresql://cli_norights@127.0.0.1:" + db.port() + "/" + db.database());

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(run.err()).contains("refused the login", "permission denied");
  }

  @Test
  void a_missing_database_table_or_schema_is_reported_and_nothing_is_created() throws Exception {
    CliRun noDatabase = cli("list", "--store",
        "postgresql://postgres@127.0.0.1:" + db.port() + "/no_such_db");
    assertThat(noDatabase.exitCode()).as(noDatabase.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(noDatabase.err()).contains("no_such_db", "does not exist", "never creates");

    CliRun noSchema = cli("list", "--store", url() + "?currentSchema=payments");
    assertThat(noSchema.exitCode()).as(noSchema.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(noSchema.err()).contains("has no table oncely_intent", "currentSchema");

    CliPostgres empty = CliPostgres.empty();
    CliRun noTable = cli("list", "--store",
        "postgresql://postgres@127.0.0.1:" + empty.port() + "/" + empty.database());
    assertThat(noTable.exitCode()).as(noTable.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(noTable.err()).contains("has no table oncely_intent", "never creates");
    try (Connection c = empty.dataSource().getConnection();
        ResultSet rs = c.createStatement().executeQuery(
            "SELECT to_regclass('oncely_intent') IS NULL")) {
      rs.next();
      assertThat(rs.getBoolean(1)).isTrue();
    }
  }

  @Test
  void a_wrong_or_missing_store_key_is_a_typed_error_and_a_key_for_a_plain_store_is_refused() {
    byte[] key = new byte[32];
    key[0] = 7;
    byte[] other = new byte[32];
    other[0] = 8;
    CliPostgres sealedDb = CliPostgres.migrated();
    try (PostgresIntentStore sealed = PostgresIntentStore.builder(sealedDb.dataSource())
        .encryption(StoreEncryption.aes256Gcm(key)).build()) {
      sealed.create(record("pg-sealed", IntentState.PENDING, Duration.ofMinutes(1)).build());
    }
    String sealedUrl = "postgresql://postgres@127.0.0.1:" + sealedDb.port() + "/"
        + sealedDb.database();

    CliRun wrongKey = CliRun.of(CLOCK, Map.of("K", HexFormat.of().formatHex(other)), "list",
        "--store", sealedUrl, "--key-env", "K");
    assertThat(wrongKey.exitCode()).as(wrongKey.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(wrongKey.err()).contains("cannot read the store with this key");
    CliRun noKey = cli("list", "--store", sealedUrl);
    assertThat(noKey.exitCode()).as(noKey.toString()).isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(noKey.err()).contains("cannot read the store with no key", "--key-file");
    CliRun rightKey = CliRun.of(CLOCK, Map.of("K", HexFormat.of().formatHex(key)), "show",
        "--business-id", "order-pg-sealed", "--store", sealedUrl, "--key-env", "K", "--reveal");
    assertThat(rightKey.exitCode()).as(rightKey.toString()).isZero();
    assertThat(rightKey.out()).contains(BODY);

    app.create(record("pg-plain", IntentState.PENDING, Duration.ofMinutes(1)).build());
    CliRun keyForPlain = CliRun.of(CLOCK, Map.of("K", HexFormat.of().formatHex(key)), "list",
        "--store", url(), "--key-env", "K");
    assertThat(keyForPlain.exitCode()).as(keyForPlain.toString())
        .isEqualTo(OncelyCli.EXIT_FAILURE);
    assertThat(keyForPlain.err()).contains("not encrypted");
  }
}
