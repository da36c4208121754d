package dev.oncely.testing;

import org.jspecify.annotations.Nullable;

/**
 * What the {@link IdempotentServer} decided to answer one request, before any after-commit fault
 * changed how (or whether) it reached the client. Immutable.
 *
 * @param requestNumber the request's number
 * @param intent the intent it belongs to (see {@link IdempotentServer.Builder#intentOf}), or null
 *     for a request without one (a poll, a malformed key)
 * @param status the status decided
 * @param kind what the answer was
 */
public record ServedAnswer(int requestNumber, @Nullable String intent, int status, Kind kind) {
  /** What an answer was. */
  public enum Kind {
    /** A new effect was committed and answered (201, or 202 when accepted). */
    EFFECT,
    /** The stored answer of a key was replayed. */
    REPLAY,
    /** A repeat met its key still in progress. */
    IN_PROGRESS,
    /** A repeat carried another fingerprint. */
    MISMATCH,
    /** The business rule refused the request (stored and replayed). */
    REFUSED,
    /** The handler failed ({@link Fault#handlerError(int)}). */
    HANDLER_ERROR,
    /**
     * The {@linkplain IdempotentServer.Builder#requireCredential required credential} was missing
     * or refused ({@code 401}).
     */
    UNAUTHORIZED,
    /** The key header was missing or malformed. */
    INVALID_KEY,
    /** A status URL answered. */
    POLL,
    /** A fault answered before the server handled the request. */
    FAULT,
    /** Anything else (a listing, a wrong method). */
    OTHER
  }
}
