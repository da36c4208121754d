package dev.oncely.server.webhook;

import java.util.Objects;

/**
 * What the receiver tells the sender: a status and a short plain-text body (a reason a sender's
 * dashboard shows, never a secret).
 *
 * @param status the HTTP status
 * @param text the body, UTF-8 plain text
 */
public record WebhookAnswer(int status, String text) {
  /** Checks the components. */
  public WebhookAnswer {
    Objects.requireNonNull(text, "text");
  }

  /** Whether this answer is a {@code 2xx}: the delivery is stored. */
  public boolean stored() {
    return status / 100 == 2;
  }
}
