package dev.oncely.client.internal.drive;

import okhttp3.HttpUrl;

/**
 * What one attempt sends: the intent's submit (its method, body and key, to {@code url}) or a poll
 * of a status URL (a GET without body or key). An answer is judged by which of the two it answers.
 */
public record Exchange(Kind kind, HttpUrl url) {
  /** Submit or poll. */
  public enum Kind {
    /** The intent's own request, with its key and exact body bytes. */
    SUBMIT,
    /** A GET of a status URL; its answers are about the status resource, not the intent. */
    POLL
  }

  /** The submit of the intent to {@code url}. */
  public static Exchange submit(HttpUrl url) {
    return new Exchange(Kind.SUBMIT, url);
  }

  /** A poll of status URL {@code url}. */
  public static Exchange poll(HttpUrl url) {
    return new Exchange(Kind.POLL, url);
  }

  /** Whether this is a poll. */
  public boolean isPoll() {
    return kind == Kind.POLL;
  }
}
