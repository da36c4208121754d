package dev.oncely.server;

/**
 * How the server spells idempotency to its clients: where the key is read and how repeats that
 * cannot be replayed are answered. Both dialects read the key from {@code Idempotency-Key} and
 * mark a replay with {@code Idempotent-Replayed: true}.
 *
 * <table>
 *   <caption>Answers by dialect</caption>
 *   <tr><th>situation</th><th>{@link #IETF}</th><th>{@link #STRIPE}</th></tr>
 *   <tr><td>key format</td><td>a Structured Field string: {@code "k"} (quoted)</td>
 *       <td>the raw value: {@code k}</td></tr>
 *   <tr><td>same key, another payload</td><td>{@code 422}, RFC 9457 problem body</td>
 *       <td>{@code 400}, {@code {"error":{"type":"idempotency_error",..}}}</td></tr>
 *   <tr><td>the first request still runs</td><td>{@code 409} + {@code Retry-After}, problem
 *       body</td><td>{@code 409} + {@code Retry-After}, {@code idempotency_error}</td></tr>
 *   <tr><td>key missing where required, or malformed</td><td>{@code 400}, problem body</td>
 *       <td>{@code 400}, {@code invalid_request_error}</td></tr>
 * </table>
 */
public enum ServerDialect {
  /** draft-ietf-httpapi-idempotency-key-header-07: quoted keys, 409, 422, problem bodies. */
  IETF,
  /** Stripe's API: raw keys, 409 in progress, 400 {@code idempotency_error} on a mismatch. */
  STRIPE;

  /** The header the key is read from. */
  public String keyHeader() {
    return "Idempotency-Key";
  }
}
