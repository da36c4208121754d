package dev.oncely.examples.shop;

import dev.oncely.examples.SettingRules;
import dev.oncely.server.ServerDialect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What one {@link Shop} runs with: the loopback port, where its data lives, the dialect of its
 * idempotency answers, the handler lease, the payment provider it charges (if any), and the
 * webhook senders it receives events from (if any), with their secrets. Immutable; the builder
 * checks each value with {@link SettingRules} and names the setting and the value (never a
 * secret).
 *
 * <p>Defaults: port {@value #DEFAULT_PORT}, dialect {@link ServerDialect#IETF}, lease {@link
 * #DEFAULT_LEASE}, no provider, provider attempt timeout {@link #DEFAULT_PROVIDER_TIMEOUT}, no
 * webhook source.
 *
 * <p>Files, for {@code store = shop.db}: the receipts in a {@code MapDbIntentStore} at {@code
 * shop.db} (plus MapDB's {@code shop.db.image}, {@code .redo}, {@code .journal}, {@code .lock}); the
 * payments and the webhook events' effects in SQLite at {@code shop.db.payments}; the provider
 * charges the shop sends, as the client's intents, in a second {@code MapDbIntentStore} at {@code
 * shop.db.outbound}; the webhook inbox in a third at {@code shop.db.inbox}; Tomcat's working
 * directory at {@code shop.db.tomcat}.
 */
public final class ShopSettings {
  /** Default port. */
  public static final int DEFAULT_PORT = 8080;
  /** Default handler lease: a request whose server died is taken over this long after. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(5);
  /** Default timeout of one attempt to the provider. */
  public static final Duration DEFAULT_PROVIDER_TIMEOUT = Duration.ofSeconds(2);

  private final int port;
  private final Path store;
  private final ServerDialect dialect;
  private final Duration lease;
  private final String provider;
  private final Duration providerTimeout;
  private final Map<String, List<String>> webhookSecrets;

  private ShopSettings(Builder b) {
    this.port = b.port;
    this.store = b.store;
    this.dialect = b.dialect;
    this.lease = b.lease;
    this.provider = b.provider;
    this.providerTimeout = b.providerTimeout;
    Map<String, List<String>> secrets = new LinkedHashMap<>();
    b.webhookSecrets.forEach((source, list) -> secrets.put(source, List.copyOf(list)));
    this.webhookSecrets = Collections.unmodifiableMap(secrets);
  }

  /** A builder with the defaults; the store has none. */
  public static Builder builder() {
    return new Builder();
  }

  /** The loopback port; 0 picks a free one. */
  public int port() {
    return port;
  }

  /** The receipt store's file; the other files are named after it. */
  public Path store() {
    return store;
  }

  /** The payments' SQLite file: {@code <store>.payments}. */
  public Path paymentsFile() {
    return store.resolveSibling(store.getFileName() + ".payments");
  }

  /** The outbound charges' store file: {@code <store>.outbound}. */
  public Path outboundFile() {
    return store.resolveSibling(store.getFileName() + ".outbound");
  }

  /** The webhook inbox's store file: {@code <store>.inbox}. */
  public Path inboxFile() {
    return store.resolveSibling(store.getFileName() + ".inbox");
  }

  /** Tomcat's working directory: {@code <store>.tomcat}, removed when the shop closes. */
  public Path tomcatDir() {
    return store.resolveSibling(store.getFileName() + ".tomcat");
  }

  /** The dialect of the idempotency answers and of the shop's own refusals. */
  public ServerDialect dialect() {
    return dialect;
  }

  /** The lease of a payment's handler. */
  public Duration lease() {
    return lease;
  }

  /** The provider's charge URL, or null when the shop charges nobody (the payment is local). */
  public String provider() {
    return provider;
  }

  /** The timeout of one attempt to the provider. */
  public Duration providerTimeout() {
    return providerTimeout;
  }

  /**
   * The webhook sources the shop receives events from ({@link WebhookSources#NAMES}), in the order
   * given; empty when it receives none.
   */
  public Set<String> webhookSources() {
    return webhookSecrets.keySet();
  }

  /** Each webhook source's secrets, in the order given. Package-private: secrets stay inside. */
  Map<String, List<String>> webhookSecrets() {
    return webhookSecrets;
  }

  @Override
  public String toString() {
    return "ShopSettings{port=" + port + ", store=" + store + ", dialect=" + dialect + ", lease="
        + SettingRules.words(lease) + ", provider=" + (provider == null ? "none" : provider)
        + ", webhooks=" + webhookSources() + "}";
  }

  /** Builds {@link ShopSettings}. Not thread-safe. */
  public static final class Builder {
    private int port = DEFAULT_PORT;
    private Path store;
    private ServerDialect dialect = ServerDialect.IETF;
    private Duration lease = DEFAULT_LEASE;
    private String provider;
    private Duration providerTimeout = DEFAULT_PROVIDER_TIMEOUT;
    private final Map<String, List<String>> webhookSecrets = new LinkedHashMap<>();

    private Builder() {}

    /**
     * The loopback port (default {@value #DEFAULT_PORT}; 0 picks a free one).
     *
     * @throws IllegalArgumentException if not in [0, 65535]
     */
    public Builder port(int port) {
      this.port = SettingRules.inRange("port", port, 0, 65535);
      return this;
    }

    /**
     * The receipt store's file (required); its directory is created when the shop opens it.
     *
     * @throws NullPointerException if {@code store} is null
     * @throws IllegalArgumentException if it names no file (a root)
     */
    public Builder store(Path store) {
      Path p = Objects.requireNonNull(store, "store").toAbsolutePath().normalize();
      if (p.getFileName() == null) {
        throw new IllegalArgumentException("store must name a file, was '" + store + "'");
      }
      this.store = p;
      return this;
    }

    /** The dialect (default {@link ServerDialect#IETF}). */
    public Builder dialect(ServerDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
      return this;
    }

    /**
     * The handler lease (default {@link #DEFAULT_LEASE}).
     *
     * @throws IllegalArgumentException if not in [1 s, 1 h] (the endpoint policy's range)
     */
    public Builder lease(Duration lease) {
      this.lease = SettingRules.inRange("lease", lease, Duration.ofSeconds(1),
          Duration.ofHours(1));
      return this;
    }

    /**
     * The provider's charge URL: every payment is first charged there through an Oncely {@code
     * IdempotentClient}, with a key derived from the payment's own (default none).
     *
     * @throws IllegalArgumentException if not an absolute http(s) URL
     */
    public Builder provider(String url) {
      this.provider = url == null ? null : SettingRules.httpUrl("provider", url);
      return this;
    }

    /**
     * The timeout of one attempt to the provider (default {@link #DEFAULT_PROVIDER_TIMEOUT}).
     *
     * @throws IllegalArgumentException if not in [10 ms, 60 s]
     */
    public Builder providerTimeout(Duration timeout) {
      this.providerTimeout = SettingRules.inRange("providerTimeout", timeout,
          Duration.ofMillis(10), Duration.ofSeconds(60));
      return this;
    }

    /**
     * Receives webhook events from {@code source} ({@link WebhookSources#NAMES}) at {@code POST
     * /webhooks/<source>}, accepting deliveries signed with {@code secret}. Call again with the
     * same source to accept a second secret while the sender rotates it.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code source} is not one of {@link
     *     WebhookSources#NAMES}, or {@code secret} is blank or not in the form its scheme takes
     *     (the message names the source, never the secret)
     */
    public Builder webhookSecret(String source, String secret) {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(secret, "secret");
      if (!WebhookSources.NAMES.contains(source)) {
        throw new IllegalArgumentException("webhookSecret's source must be one of "
            + String.join(", ", WebhookSources.NAMES) + ", was '" + source + "'");
      }
      if (secret.isBlank()) {
        throw new IllegalArgumentException("webhookSecret of " + source + " must not be blank");
      }
      try {
        WebhookSources.verifier(source, List.of(secret));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("webhookSecret of " + source + " is not usable: "
            + e.getMessage());
      }
      webhookSecrets.computeIfAbsent(source, s -> new ArrayList<>()).add(secret);
      return this;
    }

    /**
     * Returns the settings.
     *
     * @throws IllegalStateException if no store was set
     */
    public ShopSettings build() {
      if (store == null) {
        throw new IllegalStateException("store is required");
      }
      return new ShopSettings(this);
    }
  }
}
