package dev.oncely.server;

/**
 * The application's work for one idempotent request: runs only while its receipt is reserved by
 * this call, and at most once per key unless a failure released the reservation. What it answers
 * decides what is kept: see {@link IdempotentEndpoints}.
 */
@FunctionalInterface
public interface EndpointHandler {
  /**
   * Handles the request.
   *
   * @param context the receipt this run owns: outbound keys, the recovery point, pending
   * @return the answer; stored and replayed when it is a 2xx, 3xx or a business 4xx
   * @throws Exception a failure: the reservation is released (unless the context recorded that
   *     effects are committed), and the client's retry runs the handler again
   */
  ServerAnswer handle(HandlerContext context) throws Exception;
}
