package dev.oncely.spring.boot.webhooks;

import dev.oncely.server.webhook.HmacSignatures;
import dev.oncely.spring.boot.server.OncelyServerProperties;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code oncely.webhooks.*} settings: webhook deliveries verified, stored once in a durable
 * inbox and handled by {@link WebhookHandler} beans. On when a source is configured (or {@code
 * oncely.webhooks.enabled=true}); a refused value fails the start naming the property. Secrets
 * are never logged or put in a start-up failure's report.
 */
@ConfigurationProperties(prefix = "oncely.webhooks")
public class OncelyWebhooksProperties {
  /**
   * Whether the inbox and the webhook receiver are configured. Default: on when
   * oncely.webhooks.sources names a source; true without sources gives the inbox alone (queue
   * consumers).
   */
  private @Nullable Boolean enabled;

  /** The path deliveries are posted under: a POST to <path>/<source> is one delivery. */
  private String path = "/webhooks";

  /** How many handlers run at once in this instance; 0 runs none (accept only). */
  private int workers = 4;

  /** How long a run holds its message before another worker may take it over (renewed). */
  private Duration lease = Duration.ofSeconds(60);

  /** How many failed runs dead-letter a message. */
  private int maxFailures = 10;

  /** How often the store is asked for due messages when nothing wakes a worker. */
  private Duration pollInterval = Duration.ofSeconds(1);

  /**
   * How long a handled message is kept to recognize redeliveries: at least the senders' retry
   * window (Stripe's is 3 days). A source's retention overrides it.
   */
  private Duration retention = Duration.ofDays(3);

  /** The largest delivery body read, in bytes; a larger one gets 413. */
  private int maxBodyBytes = 5 * 1024 * 1024;

  /** This instance's name in the leases it holds. Default: a random one. */
  private @Nullable String instance;

  private final Backoff backoff = new Backoff();

  private final Store store = new Store();

  private final Purge purge = new Purge();

  /**
   * The webhook sources by name (the path segment after oncely.webhooks.path), each with its
   * signature scheme, secrets, tolerance and retention.
   */
  private final Map<String, Source> sources = new LinkedHashMap<>();

  public @Nullable Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(@Nullable Boolean enabled) {
    this.enabled = enabled;
  }

  public String getPath() {
    return path;
  }

  public void setPath(String path) {
    this.path = path;
  }

  public int getWorkers() {
    return workers;
  }

  public void setWorkers(int workers) {
    this.workers = workers;
  }

  public Duration getLease() {
    return lease;
  }

  public void setLease(Duration lease) {
    this.lease = lease;
  }

  public int getMaxFailures() {
    return maxFailures;
  }

  public void setMaxFailures(int maxFailures) {
    this.maxFailures = maxFailures;
  }

  public Duration getPollInterval() {
    return pollInterval;
  }

  public void setPollInterval(Duration pollInterval) {
    this.pollInterval = pollInterval;
  }

  public Duration getRetention() {
    return retention;
  }

  public void setRetention(Duration retention) {
    this.retention = retention;
  }

  public int getMaxBodyBytes() {
    return maxBodyBytes;
  }

  public void setMaxBodyBytes(int maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  public @Nullable String getInstance() {
    return instance;
  }

  public void setInstance(@Nullable String instance) {
    this.instance = instance;
  }

  public Backoff getBackoff() {
    return backoff;
  }

  public Store getStore() {
    return store;
  }

  public Purge getPurge() {
    return purge;
  }

  public Map<String, Source> getSources() {
    return sources;
  }

  /** The wait before a failed message runs again: doubling from first up to max, half random. */
  public static class Backoff {
    /** The wait after the first failure. */
    private Duration first = Duration.ofSeconds(1);

    /** The longest wait. */
    private Duration max = Duration.ofHours(1);

    public Duration getFirst() {
      return first;
    }

    public void setFirst(Duration first) {
      this.first = first;
    }

    public Duration getMax() {
      return max;
    }

    public void setMax(Duration max) {
      this.max = max;
    }
  }

  /** Where inbox messages are kept: a store of their own, never the client's or the receipts'. */
  public static class Store {
    /** Inbox store engine: mapdb, sqlite, postgres or memory (tests only). */
    private OncelyServerProperties.Engine engine = OncelyServerProperties.Engine.MAPDB;

    /** File of the mapdb or sqlite inbox store, relative to the working directory. */
    private Path path = Path.of("oncely", "inbox.db");

    /**
     * PostgreSQL schema of the postgres inbox store, on the application's DataSource: a table of
     * its own beside the client's intents and the receipts, in the same database.
     */
    private String schema = "oncely_inbox";

    /** Whether the postgres inbox store applies missing schema versions at start-up. */
    private boolean migrate = true;

    public OncelyServerProperties.Engine getEngine() {
      return engine;
    }

    public void setEngine(OncelyServerProperties.Engine engine) {
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

  /** The purge of handled messages past their source's retention. */
  public static class Purge {
    /** Whether handled messages are purged while the application runs. */
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

  /** One webhook source: how its deliveries are signed and how long its messages are kept. */
  public static class Source {
    /**
     * Signature scheme: standard (Standard Webhooks, Svix), stripe, github or hmac (the hmac.*
     * settings). Default: the source's name when it is one of these, else required.
     */
    private @Nullable String scheme;

    /**
     * Signing secrets, as the sender shows them; several while rotating (a delivery signed with
     * any of them is accepted).
     */
    private List<String> secrets = new ArrayList<>();

    /**
     * How far the signed timestamp may be from this server's clock, either way. Default: the
     * scheme's (5m for standard and hmac, 300s for stripe; github signs none).
     */
    private @Nullable Duration tolerance;

    /** How long this source's handled messages are kept. Default: oncely.webhooks.retention. */
    private @Nullable Duration retention;

    private final Hmac hmac = new Hmac();

    public @Nullable String getScheme() {
      return scheme;
    }

    public void setScheme(@Nullable String scheme) {
      this.scheme = scheme;
    }

    public List<String> getSecrets() {
      return secrets;
    }

    public void setSecrets(List<String> secrets) {
      this.secrets = secrets;
    }

    public @Nullable Duration getTolerance() {
      return tolerance;
    }

    public void setTolerance(@Nullable Duration tolerance) {
      this.tolerance = tolerance;
    }

    public @Nullable Duration getRetention() {
      return retention;
    }

    public void setRetention(@Nullable Duration retention) {
      this.retention = retention;
    }

    public Hmac getHmac() {
      return hmac;
    }
  }

  /** A sender's own HMAC scheme (scheme=hmac): where each part of a delivery is. */
  public static class Hmac {
    /** The header the signature comes in (required). */
    private @Nullable String signatureHeader;

    /** The text before each signature, e.g. sha256=. */
    private String prefix = "";

    /** Separates several signatures in one header. Default: the whole value is one signature. */
    private @Nullable String separator;

    /** How signatures are written: hex or base64. */
    private HmacSignatures.Encoding encoding = HmacSignatures.Encoding.HEX;

    /** The HMAC's hash: hmac-sha256 or hmac-sha512. */
    private HmacSignatures.Algorithm algorithm = HmacSignatures.Algorithm.HMAC_SHA256;

    /** What is signed: body, timestamp-body or id-timestamp-body (parts joined by '.'). */
    private HmacSignatures.SignedContent signedContent = HmacSignatures.SignedContent.BODY;

    /** The header naming the message id (this or id-member). */
    private @Nullable String idHeader;

    /** The top-level JSON body member naming the message id (this or id-header). */
    private @Nullable String idMember;

    /** The header naming the message's type (optional). */
    private @Nullable String typeHeader;

    /** The top-level JSON body member naming the message's type (optional). */
    private @Nullable String typeMember;

    /** The header with the signed timestamp in seconds (needs a signed content with it). */
    private @Nullable String timestampHeader;

    /** How the secrets are written: text (their UTF-8 bytes are the key), base64 or hex. */
    private SecretEncoding secretEncoding = SecretEncoding.TEXT;

    public @Nullable String getSignatureHeader() {
      return signatureHeader;
    }

    public void setSignatureHeader(@Nullable String signatureHeader) {
      this.signatureHeader = signatureHeader;
    }

    public String getPrefix() {
      return prefix;
    }

    public void setPrefix(String prefix) {
      this.prefix = prefix;
    }

    public @Nullable String getSeparator() {
      return separator;
    }

    public void setSeparator(@Nullable String separator) {
      this.separator = separator;
    }

    public HmacSignatures.Encoding getEncoding() {
      return encoding;
    }

    public void setEncoding(HmacSignatures.Encoding encoding) {
      this.encoding = encoding;
    }

    public HmacSignatures.Algorithm getAlgorithm() {
      return algorithm;
    }

    public void setAlgorithm(HmacSignatures.Algorithm algorithm) {
      this.algorithm = algorithm;
    }

    public HmacSignatures.SignedContent getSignedContent() {
      return signedContent;
    }

    public void setSignedContent(HmacSignatures.SignedContent signedContent) {
      this.signedContent = signedContent;
    }

    public @Nullable String getIdHeader() {
      return idHeader;
    }

    public void setIdHeader(@Nullable String idHeader) {
      this.idHeader = idHeader;
    }

    public @Nullable String getIdMember() {
      return idMember;
    }

    public void setIdMember(@Nullable String idMember) {
      this.idMember = idMember;
    }

    public @Nullable String getTypeHeader() {
      return typeHeader;
    }

    public void setTypeHeader(@Nullable String typeHeader) {
      this.typeHeader = typeHeader;
    }

    public @Nullable String getTypeMember() {
      return typeMember;
    }

    public void setTypeMember(@Nullable String typeMember) {
      this.typeMember = typeMember;
    }

    public @Nullable String getTimestampHeader() {
      return timestampHeader;
    }

    public void setTimestampHeader(@Nullable String timestampHeader) {
      this.timestampHeader = timestampHeader;
    }

    public SecretEncoding getSecretEncoding() {
      return secretEncoding;
    }

    public void setSecretEncoding(SecretEncoding secretEncoding) {
      this.secretEncoding = secretEncoding;
    }

    /** Whether any setting names a part of a delivery (they apply to scheme hmac only). */
    boolean named() {
      return signatureHeader != null || idHeader != null || idMember != null
          || typeHeader != null || typeMember != null || timestampHeader != null
          || separator != null || !prefix.isEmpty();
    }
  }

  /** How an hmac source's secrets are written in the properties. */
  public enum SecretEncoding {
    /** As text: its UTF-8 bytes are the key (GitHub's and most senders' form). */
    TEXT,
    /** Base64 of the key's bytes. */
    BASE64,
    /** Hex digits of the key's bytes. */
    HEX
  }
}
