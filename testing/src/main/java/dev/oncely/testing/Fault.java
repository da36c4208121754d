package dev.oncely.testing;

import java.util.Objects;
import mockwebserver3.MockResponse;
import mockwebserver3.SocketEffect;
import org.jspecify.annotations.Nullable;

/**
 * One named fault the {@link IdempotentServer} injects into one request, each named after what the
 * client observes and documented with the real-world failure it simulates. Immutable.
 *
 * <p>Faults "before handling" leave the server's records and the {@link EffectLedger} untouched;
 * faults "after commit" act once the effect and the stored answer exist, so the client cannot tell
 * from the wire that the effect happened. Server inconsistencies change the server's record before
 * the request is handled.
 *
 * <p>The faults that act on the connection alone ({@link #actsOnTheWire()}) also script answers a
 * test queues itself, without an {@link IdempotentServer}:
 *
 * <pre>{@code
 * server.enqueue(Fault.dropAfterCommit().applyTo(new MockResponse.Builder().code(201)).build());
 * }</pre>
 */
public final class Fault {
  /** The fault kinds; see the factory methods of {@link Fault} for each one's meaning. */
  public enum Kind {
    /** See {@link Fault#refuse()}. */
    REFUSE,
    /** See {@link Fault#answer(int)}. */
    ANSWER_BEFORE_HANDLING,
    /** See {@link Fault#informational(int)}. */
    INFORMATIONAL,
    /** See {@link Fault#redirect(int, String)}. */
    REDIRECT,
    /** See {@link Fault#authOnRetry(int)}. */
    AUTH_ON_RETRY,
    /** See {@link Fault#handlerError(int)}. */
    HANDLER_ERROR,
    /** See {@link Fault#lateOriginal()}. */
    LATE_ORIGINAL,
    /** See {@link Fault#processingSlowly(int)}. */
    PROCESSING_SLOWLY,
    /** See {@link Fault#dropAfterCommit()}. */
    DROP_AFTER_COMMIT,
    /** See {@link Fault#stallAfterCommit()}. */
    STALL_AFTER_COMMIT,
    /** See {@link Fault#truncateBody()}. */
    TRUNCATE_BODY,
    /** See {@link Fault#gatewayAfterCommit(int)}. */
    GATEWAY_AFTER_COMMIT,
    /** See {@link Fault#seeOtherAfterCommit()}. */
    SEE_OTHER_AFTER_COMMIT,
    /** See {@link Fault#lostRecord()}. */
    LOST_RECORD,
    /** See {@link Fault#lostFingerprint()}. */
    LOST_FINGERPRINT
  }

  private final Kind kind;
  private final int status;
  private final @Nullable String location;

  private Fault(Kind kind, int status, @Nullable String location) {
    this.kind = kind;
    this.status = status;
    this.location = location;
  }

  /**
   * The connection is closed before the request is handled and before any answer: a load balancer
   * that resets the connection, a crashed server process. No effect.
   */
  public static Fault refuse() {
    return new Fault(Kind.REFUSE, 0, null);
  }

  /**
   * Something in front of the server (proxy, WAF, rate limiter, a misrouted host) answers
   * {@code status} without passing the request on. No effect. Any status from 200 to 599 is
   * allowed, so a generator can produce answers of every class; a 429 or 503 carries the server's
   * {@code Retry-After} ({@link IdempotentServer.Builder#retryAfterSeconds(int)}, default 1).
   *
   * @throws IllegalArgumentException if {@code status} is not in [200, 599]
   */
  public static Fault answer(int status) {
    checkStatus(status, 200, 599, "answer");
    return new Fault(Kind.ANSWER_BEFORE_HANDLING, status, null);
  }

  /**
   * An informational {@code status} (e.g. {@code 103 Early Hints}) precedes the real answer. The
   * request is handled normally.
   *
   * @throws IllegalArgumentException if {@code status} is not in [102, 199] (100 and 101 have
   *     protocol meaning of their own)
   */
  public static Fault informational(int status) {
    checkStatus(status, 102, 199, "informational");
    return new Fault(Kind.INFORMATIONAL, status, null);
  }

  /**
   * The server answers a redirect {@code status} with {@code Location: location} without handling
   * the request: a moved endpoint (301/302/308), an http-to-https upgrade, a load balancer
   * (307). No effect. A relative {@code location} resolves against the request's origin.
   *
   * @throws IllegalArgumentException if {@code status} is not 301, 302, 303, 307 or 308
   * @throws NullPointerException if {@code location} is null
   */
  public static Fault redirect(int status, String location) {
    if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308) {
      throw new IllegalArgumentException(
          "redirect status must be 301, 302, 303, 307 or 308, was " + status);
    }
    return new Fault(Kind.REDIRECT, status, Objects.requireNonNull(location, "location"));
  }

  /**
   * On a request whose key the server has seen before (a retry), answers {@code status}
   * ({@code 401} with {@code WWW-Authenticate}, or {@code 403}) without handling it: an expired
   * token, a firewall that blocks the retry. No further effect; an earlier attempt may have one.
   * On a first request it does nothing.
   *
   * @throws IllegalArgumentException if {@code status} is not 401, 403 or 407
   */
  public static Fault authOnRetry(int status) {
    if (status != 401 && status != 403 && status != 407) {
      throw new IllegalArgumentException("authOnRetry status must be 401, 403 or 407, was "
          + status);
    }
    return new Fault(Kind.AUTH_ON_RETRY, status, null);
  }

  /**
   * The handler fails with {@code status} before the effect: the record is kept with this answer
   * (replayed to every retry) or forgotten (the retry re-executes), as the server's
   * {@link ServerErrors} policy says. No effect by this request.
   *
   * @throws IllegalArgumentException if {@code status} is not in [500, 599]
   */
  public static Fault handlerError(int status) {
    checkStatus(status, 500, 599, "handlerError");
    return new Fault(Kind.HANDLER_ERROR, status, null);
  }

  /**
   * The original request is slow: the server reserves the key (retries get the in-progress
   * answer) and holds the request; it commits the effect and answers only once a retry of the same
   * key was answered "in progress", or after the server's {@code lateFor} time. Usually the client
   * has given up on the original by then.
   */
  public static Fault lateOriginal() {
    return new Fault(Kind.LATE_ORIGINAL, 0, null);
  }

  /**
   * The effect is committed but its processing takes a while: this request is answered {@code
   * 202 {"status":"processing"}} without a status URL, the next {@code busyRepeats} repeats of the
   * key get the in-progress answer, and later repeats the stored result ({@code 201}).
   *
   * @throws IllegalArgumentException if {@code busyRepeats} is not in [0, 100]
   */
  public static Fault processingSlowly(int busyRepeats) {
    if (busyRepeats < 0 || busyRepeats > 100) {
      throw new IllegalArgumentException("busyRepeats must be in [0, 100], was " + busyRepeats);
    }
    return new Fault(Kind.PROCESSING_SLOWLY, busyRepeats, null);
  }

  /**
   * The effect is committed and the answer stored, then the connection is closed before the answer
   * starts: the client reads an EOF and cannot know the effect happened.
   */
  public static Fault dropAfterCommit() {
    return new Fault(Kind.DROP_AFTER_COMMIT, 0, null);
  }

  /**
   * The effect is committed and the answer stored, then the server never answers on this
   * connection (until the client gives up or the server closes): a client read timeout.
   */
  public static Fault stallAfterCommit() {
    return new Fault(Kind.STALL_AFTER_COMMIT, 0, null);
  }

  /**
   * The answer's status line and headers are sent, then the connection is closed in the middle of
   * the body: the client knows the status but cannot read the body.
   */
  public static Fault truncateBody() {
    return new Fault(Kind.TRUNCATE_BODY, 0, null);
  }

  /**
   * The effect is committed, then a gateway in front answers {@code status} instead of the origin's
   * answer: Cloudflare's 520-530 (524 "a timeout occurred" is sent after the origin got the
   * request), a 502/504 from a load balancer, 598/599 from network proxies.
   *
   * @throws IllegalArgumentException if {@code status} is not in [500, 599]
   */
  public static Fault gatewayAfterCommit(int status) {
    checkStatus(status, 500, 599, "gatewayAfterCommit");
    return new Fault(Kind.GATEWAY_AFTER_COMMIT, status, null);
  }

  /**
   * The effect is committed, then the server answers {@code 303 See Other} pointing at the status
   * URL of the result (as RFC 9110 suggests for a POST whose result is elsewhere).
   */
  public static Fault seeOtherAfterCommit() {
    return new Fault(Kind.SEE_OTHER_AFTER_COMMIT, 303, null);
  }

  /**
   * Before this request is handled the server loses the key's record (a failover to a replica
   * that lacks it, a cache eviction): the request is handled as new, so a retry causes a second
   * effect, marked {@link EffectLedger.Effect#afterServerForgot()} in the ledger.
   */
  public static Fault lostRecord() {
    return new Fault(Kind.LOST_RECORD, 0, null);
  }

  /**
   * Before this request is handled the server garbles the fingerprint stored with the key's
   * record: a byte-identical retry gets the mismatch answer although the effect exists.
   */
  public static Fault lostFingerprint() {
    return new Fault(Kind.LOST_FINGERPRINT, 0, null);
  }

  /**
   * Whether this fault acts on the connection alone, so that {@link #applyTo} can script it on any
   * answer: {@link #refuse()}, {@link #dropAfterCommit()}, {@link #stallAfterCommit()}, {@link
   * #truncateBody()} and {@link #informational(int)}. The other kinds decide what the server
   * records or answers (whether an effect happens, what is stored and replayed), which only an
   * {@link IdempotentServer} can do.
   */
  public boolean actsOnTheWire() {
    switch (kind) {
      case REFUSE:
      case DROP_AFTER_COMMIT:
      case STALL_AFTER_COMMIT:
      case TRUNCATE_BODY:
      case INFORMATIONAL:
        return true;
      default:
        return false;
    }
  }

  /**
   * Scripts this fault on {@code response}, an answer a test queues itself (e.g. with {@code
   * MockWebServer.enqueue}); the {@link IdempotentServer} scripts its own answers the same way.
   * What the client observes:
   *
   * <ul>
   *   <li>{@link #refuse()} and {@link #dropAfterCommit()}: the connection closes after the
   *       request was read and before any byte of the answer, an EOF; the two differ only in
   *       whether the server committed the effect, which is the test's to decide here;
   *   <li>{@link #stallAfterCommit()}: no byte of the answer ever comes, a read timeout;
   *   <li>{@link #truncateBody()}: the status line and headers arrive, then the connection closes
   *       in the body ({@code response} needs a body longer than what one write sends, e.g. some
   *       kilobytes, for the cut to fall inside it);
   *   <li>{@link #informational(int)}: the informational answer precedes {@code response}.
   * </ul>
   *
   * The socket effect replaces one {@code response} already had at the same point.
   *
   * @param response the answer to script; changed in place
   * @return {@code response}, for chaining
   * @throws UnsupportedOperationException if this fault does not {@linkplain #actsOnTheWire() act
   *     on the wire} alone
   * @throws NullPointerException if {@code response} is null
   */
  public MockResponse.Builder applyTo(MockResponse.Builder response) {
    Objects.requireNonNull(response, "response");
    switch (kind) {
      case REFUSE:
      case DROP_AFTER_COMMIT:
        return response.onResponseStart(new SocketEffect.CloseSocket(true, true, true));
      case STALL_AFTER_COMMIT:
        return response.onResponseStart(SocketEffect.Stall.INSTANCE);
      case TRUNCATE_BODY:
        return response.onResponseBody(new SocketEffect.CloseSocket(true, true, true));
      case INFORMATIONAL:
        return response.addInformationalResponse(new MockResponse.Builder().code(status).build());
      default:
        throw new UnsupportedOperationException(this + " decides what the server records or"
            + " answers, so only an IdempotentServer can inject it; faults that act on the wire"
            + " alone: refuse, dropAfterCommit, stallAfterCommit, truncateBody, informational");
    }
  }

  /** This fault's kind. */
  public Kind kind() {
    return kind;
  }

  /**
   * The HTTP status this fault answers or adds, or 0 for kinds without one; for {@link
   * Kind#PROCESSING_SLOWLY} the number of busy repeats.
   */
  public int status() {
    return status;
  }

  /** The {@code Location} of a {@link Kind#REDIRECT}, else null. */
  public @Nullable String location() {
    return location;
  }

  private static void checkStatus(int status, int min, int max, String what) {
    if (status < min || status > max) {
      throw new IllegalArgumentException(
          what + " status must be in [" + min + ", " + max + "], was " + status);
    }
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Fault f && f.kind == kind && f.status == status
        && Objects.equals(f.location, location);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, status, location);
  }

  @Override
  public String toString() {
    String name = kind.name().toLowerCase(java.util.Locale.ROOT);
    if (location != null) {
      return name + "(" + status + " -> " + location + ")";
    }
    return status == 0 ? name : name + "(" + status + ")";
  }
}
