package dev.oncely.server.webhook;

import java.util.Objects;

/**
 * A delivery that failed verification: nothing was stored. {@link #getMessage()} says why in words
 * a sender's dashboard can show (it never contains a secret or an expected signature); {@link
 * #status()} is the answer's status.
 */
public final class WebhookRefusedException extends Exception {
  private static final long serialVersionUID = 1L;
  private final Reason reason;

  /**
   * A refusal for {@code reason}, described by {@code message}.
   *
   * @throws NullPointerException if an argument is null
   */
  public WebhookRefusedException(Reason reason, String message) {
    super(Objects.requireNonNull(message, "message"), null, false, false);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** Why, as a value for metrics. */
  public Reason reason() {
    return reason;
  }

  /** The answer's status: {@code 400} for a delivery that cannot be read, {@code 401} otherwise. */
  public int status() {
    return reason.status;
  }

  /** Why a delivery was refused. */
  public enum Reason {
    /** The scheme's signature header is absent. */
    MISSING_SIGNATURE(400),
    /** A signature header, timestamp or id is not in the scheme's format. */
    MALFORMED(400),
    /** The message id the scheme requires is absent (or the body does not name one). */
    MISSING_ID(400),
    /** The timestamp the scheme signs is absent. */
    MISSING_TIMESTAMP(400),
    /** No signature matches any of the source's secrets. */
    BAD_SIGNATURE(401),
    /** The signed timestamp is older than the tolerance. */
    STALE_TIMESTAMP(401),
    /** The signed timestamp is further in the future than the tolerance. */
    FUTURE_TIMESTAMP(401);

    private final int status;

    Reason(int status) {
      this.status = status;
    }

    /** The answer's status for this reason. */
    public int status() {
      return status;
    }
  }
}
