package dev.oncely.spring.boot.server;

import dev.oncely.server.EndpointPolicy;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a Spring MVC handler method an idempotent endpoint: a request carrying an {@code
 * Idempotency-Key} reserves (scope, operation, key) before the method runs, and a repeat gets the
 * stored answer, {@code 409} while the first runs, {@code 202} while an effect's outcome is
 * unknown, or the dialect's mismatch answer for another payload under the same key. Put it beside
 * the mapping:
 *
 * <pre>{@code
 * @PostMapping("/payments")
 * @IdempotentEndpoint(operation = "payments.create")
 * Payment create(@RequestBody PaymentRequest request) { ... }
 * }</pre>
 *
 * <p>With {@code oncely.server.enabled=true}, the starter reads every handler method carrying it
 * once the application's handler mappings are ready, and routes its HTTP methods and path
 * patterns to the {@link EndpointPolicy} the attributes describe. A mapping the route table cannot
 * follow exactly fails the start with an {@link EndpointRouteException}: no HTTP method, a
 * pattern with a regular expression, a wildcard inside a segment or {@code **} before the end,
 * or a path another handler method serves too in a way Spring would choose differently.
 *
 * <p>Every attribute's default is {@link EndpointPolicy}'s. Durations are written as Spring Boot
 * reads them ({@code 30s}, {@code 500ms}, {@code 24h}, {@code PT1M}) and may be {@code ${..}}
 * placeholders resolved against the environment.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentEndpoint {
  /**
   * The operation every receipt of this endpoint is kept under (say {@code payments.create}); two
   * handler methods may share one only with the same attributes.
   *
   * @return the operation's name
   */
  String operation();

  /**
   * Whether a request without a key is refused with {@code 400}; false runs it unprotected.
   *
   * @return true by default
   */
  boolean keyRequired() default true;

  /**
   * How long a repeat waits for the first request before it is answered {@code 409} (at most
   * 60 s; the wait holds the request's thread).
   *
   * @return {@code 0s} by default: {@code 409} at once
   */
  String inProgressWait() default "0s";

  /**
   * How long a finished receipt is kept: a client may retry with the key that long (at least one
   * minute).
   *
   * @return {@code 24h} by default
   */
  String retention() default "24h";

  /**
   * The handler's lease (1 s to 1 h), renewed while it runs: a repeat takes over only after an
   * owner died or froze that long.
   *
   * @return {@code 30s} by default
   */
  String lease() default "30s";

  /**
   * Whether a request whose handler died mid-run may run again: true only when its effects are
   * in one transaction with the receipt's recovery point, or idempotent by themselves.
   *
   * @return false by default: such a request goes pending until recovered
   */
  boolean rerunSafe() default false;

  /**
   * The largest accepted body; a larger one gets {@code 413} before anything runs.
   *
   * @return 1 MiB by default
   */
  long maxBodyBytes() default 1L << 20;

  /**
   * JSON fields left out of the payload's fingerprint (a timestamp the client refreshes), by name
   * at any depth.
   *
   * @return none by default
   */
  String[] volatileFields() default {};

  /**
   * The answer headers stored and replayed; credentials, cookies and framing headers are refused.
   *
   * @return {@link EndpointPolicy#DEFAULT_REPLAYED_HEADERS} by default; {@code {}} replays none
   */
  String[] replayedHeaders() default {"Content-Type", "Content-Language", "Content-Location",
      "Location", "ETag", "Last-Modified", "Link"};
}
