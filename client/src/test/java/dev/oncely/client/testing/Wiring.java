package dev.oncely.client.testing;

import dev.oncely.client.IdempotencyInterceptor;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import org.junit.jupiter.params.provider.Arguments;

/**
 * How an app wires the interceptor into its own {@link OkHttpClient}, for tests that keep a
 * promise each way and over HTTP/1.1 and h2c.
 */
public enum Wiring {
  /** {@code installOn(builder)} on OkHttp's defaults: redirects followed, silent resends on. */
  INSTALL_ON,
  /** The application half only: redirects off, silent resends off. */
  PLAIN;

  /** {@code builder} with {@code interceptor} wired this way. */
  public OkHttpClient.Builder wire(IdempotencyInterceptor interceptor,
      OkHttpClient.Builder builder) {
    if (this == INSTALL_ON) {
      return interceptor.installOn(builder);
    }
    return builder.addInterceptor(interceptor).followRedirects(false)
        .retryOnConnectionFailure(false);
  }

  /** Every protocol (HTTP/1.1, h2c) with every wiring, as parameterized-test arguments. */
  public static Stream<Arguments> withProtocols() {
    List<Arguments> all = new ArrayList<>();
    for (Protocol protocol : List.of(Protocol.HTTP_1_1, Protocol.H2_PRIOR_KNOWLEDGE)) {
      for (Wiring wiring : values()) {
        all.add(Arguments.of(protocol, wiring));
      }
    }
    return all.stream();
  }
}
