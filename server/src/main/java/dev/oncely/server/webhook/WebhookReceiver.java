package dev.oncely.server.webhook;

import dev.oncely.client.StoreException;
import dev.oncely.server.inbox.Acceptance;
import dev.oncely.server.inbox.Inbox;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Receives webhook deliveries, framework-neutral: for a delivery to source {@code s}, verifies it
 * with {@code s}'s {@link WebhookVerifier} (nothing is stored when it fails: {@code 400}/{@code
 * 401} with the reason), then stores it once in the {@link Inbox} under ({@code s}, the event's id)
 * and answers {@code 200}; a duplicate gets the same {@code 200}. The handler runs on the inbox's
 * workers after the answer, so the answer comes within any sender's deadline. A store that fails
 * gets {@code 503}, which senders retry. Adapters ({@link dev.oncely.server.servlet.WebhookServlet},
 * a test) turn their request into a {@link WebhookRequest} and write the {@link WebhookAnswer}.
 *
 * <p>Thread-safe and immutable. It does not close the inbox.
 */
public final class WebhookReceiver {
  private static final System.Logger LOG = System.getLogger(WebhookReceiver.class.getName());
  /** The largest body accepted by default: 5 MiB (GitHub's are up to 25 MB; raise it for them). */
  public static final int DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;

  private final Inbox inbox;
  private final Map<String, WebhookVerifier> sources;
  private final Clock clock;
  private final int maxBodyBytes;
  private final WebhookListener listener;

  private WebhookReceiver(Builder b) {
    this.inbox = b.inbox;
    this.sources = Map.copyOf(b.sources);
    this.clock = b.clock;
    this.maxBodyBytes = b.maxBodyBytes;
    this.listener = b.listener;
  }

  /** A builder for a receiver that stores into {@code inbox}. */
  public static Builder builder(Inbox inbox) {
    return new Builder(inbox);
  }

  /** The names of the sources this receiver verifies. */
  public Set<String> sources() {
    return sources.keySet();
  }

  /** The largest body this receiver reads. */
  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  /** The inbox deliveries are stored in. */
  public Inbox inbox() {
    return inbox;
  }

  /**
   * Verifies and stores one delivery to {@code source}.
   *
   * @return the answer to write: {@code 200} when stored now or before, {@code 400}/{@code 401}
   *     when refused, {@code 404} for an unknown source, {@code 413} for a body over the limit,
   *     {@code 503} when the store failed
   */
  public WebhookAnswer receive(String source, WebhookRequest request) {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(request, "request");
    WebhookVerifier verifier = sources.get(source);
    if (verifier == null) {
      return new WebhookAnswer(404, "no webhook source is named " + source);
    }
    if (request.body().length > maxBodyBytes) {
      return new WebhookAnswer(413, "the body is over the receiver's limit of " + maxBodyBytes
          + " bytes");
    }
    VerifiedDelivery delivery;
    try {
      delivery = verifier.verify(request, clock.instant());
    } catch (WebhookRefusedException e) {
      hearRefusal(source, e.reason());
      return new WebhookAnswer(e.status(), e.getMessage());
    }
    try {
      Acceptance a = inbox.accept(source, delivery.messageId(), delivery.type(), request.body(),
          request.header("Content-Type"));
      return new WebhookAnswer(200, a == Acceptance.ACCEPTED ? "accepted" : "duplicate");
    } catch (StoreException e) {
      LOG.log(Level.WARNING, "the inbox store failed for a delivery to " + source
          + "; answered 503 so the sender retries: " + e.getMessage());
      return new WebhookAnswer(503, "the receiver could not store the event; retry later");
    } catch (IllegalArgumentException e) {
      return new WebhookAnswer(400, "the event id cannot be used: " + e.getMessage());
    }
  }

  private void hearRefusal(String source, WebhookRefusedException.Reason reason) {
    try {
      listener.refused(source, reason);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "a webhook listener threw; ignored", e);
    }
  }

  /** Builds a {@link WebhookReceiver}. Not thread-safe. */
  public static final class Builder {
    private final Inbox inbox;
    private final Map<String, WebhookVerifier> sources = new LinkedHashMap<>();
    private Clock clock = Clock.systemUTC();
    private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
    private WebhookListener listener = (s, r) -> { };

    private Builder(Inbox inbox) {
      this.inbox = Objects.requireNonNull(inbox, "inbox");
    }

    /**
     * Verifies deliveries to {@code source} with {@code verifier}; their messages are stored under
     * {@code source} in the inbox, whose handler for it runs them.
     *
     * @throws IllegalArgumentException if {@code source} is blank, has characters other than
     *     letters, digits, {@code -}, {@code _} and {@code .}, or is named twice
     */
    public Builder source(String source, WebhookVerifier verifier) {
      Objects.requireNonNull(verifier, "verifier");
      if (!Objects.requireNonNull(source, "source").matches("[A-Za-z0-9._-]{1,64}")) {
        throw new IllegalArgumentException("a webhook source's name is 1 to 64 letters, digits,"
            + " '-', '_' or '.' (it is a path segment), was " + source);
      }
      if (sources.putIfAbsent(source, verifier) != null) {
        throw new IllegalArgumentException("source " + source + " is named twice");
      }
      return this;
    }

    /** The clock signed timestamps are checked against (default UTC system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The largest body read (default {@value #DEFAULT_MAX_BODY_BYTES} bytes). */
    public Builder maxBodyBytes(int maxBodyBytes) {
      if (maxBodyBytes < 1) {
        throw new IllegalArgumentException("maxBodyBytes must be positive, was " + maxBodyBytes);
      }
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    /** Hears every refused delivery (metrics). */
    public Builder listener(WebhookListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Builds the receiver.
     *
     * @throws IllegalStateException if no source was named
     */
    public WebhookReceiver build() {
      if (sources.isEmpty()) {
        throw new IllegalStateException("a webhook receiver needs at least one source");
      }
      return new WebhookReceiver(this);
    }
  }
}
