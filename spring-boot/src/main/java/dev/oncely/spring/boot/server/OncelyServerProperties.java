package dev.oncely.spring.boot.server;

import dev.oncely.server.ServerDialect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code oncely.server.*} settings: the server half's idempotent endpoints in a servlet web
 * application. Off by default; a client-only application sees no change. A refused value fails
 * the start naming the property.
 */
@ConfigurationProperties(prefix = "oncely.server")
public class OncelyServerProperties {
  /** Whether the idempotent endpoints are served (needs oncely-server and a servlet web app). */
  private boolean enabled = false;

  /** How answers are spelled: ietf (quoted keys, 422 on a mismatch) or stripe (raw keys, 400). */
  private ServerDialect dialect = ServerDialect.IETF;

  /**
   * Whose key a request's key is: "principal" (the authenticated user's name; anonymous
   * requests share one scope) or "header:<Name>" (a tenant header set by an authenticating
   * gateway; a request without it gets 400).
   */
  private String scope = "principal";

  /** The path the status URLs of pending requests are served under (GET). */
  private String statusPath = "/oncely/receipts";

  /**
   * This instance's name in the leases of running handlers. Default: the process id and a random
   * suffix.
   */
  private @Nullable String instance;

  /**
   * The servlet filter's order. Default: 10 after spring.security.filter.order (Spring Security's
   * default -100 gives -90), so the principal is known when the scope is resolved.
   */
  private @Nullable Integer filterOrder;

  private final Store store = new Store();

  private final Purge purge = new Purge();

  /**
   * Routes by operation name, beside the @IdempotentEndpoint methods, each with method (POST),
   * path, key-required, in-progress-wait, retention, lease, rerun-safe, max-body-bytes,
   * volatile-fields and replayed-headers. Write an operation name with dots in brackets:
   * oncely.server.endpoints[payments.create].path=/payments.
   */
  private final Map<String, Endpoint> endpoints = new LinkedHashMap<>();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public ServerDialect getDialect() {
    return dialect;
  }

  public void setDialect(ServerDialect dialect) {
    this.dialect = dialect;
  }

  public String getScope() {
    return scope;
  }

  public void setScope(String scope) {
    this.scope = scope;
  }

  public String getStatusPath() {
    return statusPath;
  }

  public void setStatusPath(String statusPath) {
    this.statusPath = statusPath;
  }

  public @Nullable String getInstance() {
    return instance;
  }

  public void setInstance(@Nullable String instance) {
    this.instance = instance;
  }

  public @Nullable Integer getFilterOrder() {
    return filterOrder;
  }

  public void setFilterOrder(@Nullable Integer filterOrder) {
    this.filterOrder = filterOrder;
  }

  public Store getStore() {
    return store;
  }

  public Purge getPurge() {
    return purge;
  }

  public Map<String, Endpoint> getEndpoints() {
    return endpoints;
  }

  /**
   * The store engines a property can name: for the receipts ({@code oncely.server.store.engine})
   * and the webhook inbox ({@code oncely.webhooks.store.engine}), each a store of its own.
   */
  public enum Engine {
    /** MapDB file store (the default). */
    MAPDB,
    /** SQLite file store. */
    SQLITE,
    /** PostgreSQL on the application's DataSource (needs oncely-client-postgres). */
    POSTGRES,
    /**
     * In memory: nothing survives a restart, so a repeat (or a redelivered webhook) after one
     * runs again. Tests only.
     */
    MEMORY
  }

  /** Where receipts are kept: a store of their own, never the client's intent store. */
  public static class Store {
    /** Receipt store engine: mapdb, sqlite, postgres or memory. */
    private Engine engine = Engine.MAPDB;

    /** File of the mapdb or sqlite receipt store, relative to the working directory. */
    private Path path = Path.of("oncely", "receipts.db");

    /**
     * PostgreSQL schema of the postgres receipt store, on the application's DataSource: a table
     * of its own beside the client's intents, in the same database (one transaction can write
     * business rows and the recovery point).
     */
    private String schema = "oncely_receipts";

    /** Whether the postgres receipt store applies missing schema versions at start-up. */
    private boolean migrate = true;

    public Engine getEngine() {
      return engine;
    }

    public void setEngine(Engine engine) {
      this.engine = engine;
    }

    public Path getPath() {
      return path;
    }

    public void setPath(Path path) {
      this.path = path;
    }

    public String getSchema() {
      return schema;
    }

    public void setSchema(String schema) {
      this.schema = schema;
    }

    public boolean isMigrate() {
      return migrate;
    }

    public void setMigrate(boolean migrate) {
      this.migrate = migrate;
    }
  }

  /** The purge of finished receipts past their endpoint's retention. */
  public static class Purge {
    /** Whether finished receipts are purged while the application runs. */
    private boolean enabled = true;

    /** Time between two purges. */
    private Duration interval = Duration.ofMinutes(5);

    /** Span of expiry time one purge write removes (bounds each write, not the total). */
    private Duration step = Duration.ofMinutes(1);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public Duration getStep() {
      return step;
    }

    public void setStep(Duration step) {
      this.step = step;
    }
  }

  /** One route of the property route table: its method, path pattern and policy. */
  public static class Endpoint {
    /** HTTP method of the route. */
    private String method = "POST";

    /**
     * Path pattern: literal segments, {name} for any one segment, and an optional /** at the end.
     */
    private @Nullable String path;

    /** Whether a request without a key is refused with 400 (else it runs unprotected). */
    private boolean keyRequired = true;

    /** How long a repeat waits for the first request before it is answered 409 (at most 60s). */
    private Duration inProgressWait = Duration.ZERO;

    /** How long a finished receipt is kept (at least 1m). */
    private Duration retention = Duration.ofHours(24);

    /** The handler's lease, renewed while it runs (1s to 1h). */
    private Duration lease = Duration.ofSeconds(30);

    /** Whether a request whose handler died mid-run may run again. */
    private boolean rerunSafe = false;

    /** The largest accepted body in bytes; a larger one gets 413. */
    private long maxBodyBytes = 1L << 20;

    /** JSON fields left out of the payload's fingerprint. */
    private List<String> volatileFields = new ArrayList<>();

    /** The answer headers stored and replayed. Default: the policy's list (Content-Type, ...). */
    private @Nullable List<String> replayedHeaders;

    public String getMethod() {
      return method;
    }

    public void setMethod(String method) {
      this.method = method;
    }

    public @Nullable String getPath() {
      return path;
    }

    public void setPath(@Nullable String path) {
      this.path = path;
    }

    public boolean isKeyRequired() {
      return keyRequired;
    }

    public void setKeyRequired(boolean keyRequired) {
      this.keyRequired = keyRequired;
    }

    public Duration getInProgressWait() {
      return inProgressWait;
    }

    public void setInProgressWait(Duration inProgressWait) {
      this.inProgressWait = inProgressWait;
    }

    public Duration getRetention() {
      return retention;
    }

    public void setRetention(Duration retention) {
      this.retention = retention;
    }

    public Duration getLease() {
      return lease;
    }

    public void setLease(Duration lease) {
      this.lease = lease;
    }

    public boolean isRerunSafe() {
      return rerunSafe;
    }

    public void setRerunSafe(boolean rerunSafe) {
      this.rerunSafe = rerunSafe;
    }

    public long getMaxBodyBytes() {
      return maxBodyBytes;
    }

    public void setMaxBodyBytes(long maxBodyBytes) {
      this.maxBodyBytes = maxBodyBytes;
    }

    public List<String> getVolatileFields() {
      return volatileFields;
    }

    public void setVolatileFields(List<String> volatileFields) {
      this.volatileFields = volatileFields;
    }

    public @Nullable List<String> getReplayedHeaders() {
      return replayedHeaders;
    }

    public void setReplayedHeaders(@Nullable List<String> replayedHeaders) {
      this.replayedHeaders = replayedHeaders;
    }
  }
}
