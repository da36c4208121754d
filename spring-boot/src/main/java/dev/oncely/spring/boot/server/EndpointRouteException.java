package dev.oncely.spring.boot.server;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The idempotent endpoints' route table cannot be built from the application's {@link
 * IdempotentEndpoint} methods: an attribute is refused, a mapping names no HTTP method, a path
 * pattern is one the table would match differently from Spring MVC, or two routes (or a route and
 * another handler method) match the same requests. Thrown at start-up, once the handler mappings
 * are ready; the starter's failure analyzer reports it as "APPLICATION FAILED TO START" naming the
 * handler method. A refused {@code oncely.server.endpoints.*} property is an {@link
 * dev.oncely.spring.boot.OncelyPropertyException} instead.
 */
public class EndpointRouteException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String source;

  /**
   * Creates the exception.
   *
   * @param source what declared the refused route, e.g. {@code @IdempotentEndpoint on
   *     PaymentsController#create}
   * @param reason why it is refused, in words that follow the source
   * @param cause the refusal behind it, or null
   * @throws NullPointerException if {@code source} or {@code reason} is null
   */
  public EndpointRouteException(String source, String reason, @Nullable Throwable cause) {
    super(Objects.requireNonNull(source, "source") + " " + Objects.requireNonNull(reason,
        "reason"), cause);
    this.source = source;
  }

  /**
   * What declared the refused route.
   *
   * @return e.g. {@code @IdempotentEndpoint on PaymentsController#create}
   */
  public String source() {
    return source;
  }
}
