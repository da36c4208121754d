package dev.oncely.spring.boot;

import dev.oncely.spring.web.OncelyClientHttpRequestFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * Puts Boot's {@code RestClient.Builder} on the Oncely request factory: a {@link
 * RestClientCustomizer} that sets {@link OncelyClientHttpRequestFactory} as the builder's request
 * factory, so an app injects Boot's builder (its message converters, observation and the app's
 * other customizers) instead of calling the static {@code RestClient.builder()}. Boot applies
 * customizers after its own request factory, so the Oncely one wins; timeouts are the retry
 * policy's ({@code oncely.retry.attempt-timeout}) and the app's {@code OkHttpClient} bean's, not
 * {@code spring.http.clients.*}.
 *
 * <p>Active when {@code spring-boot-restclient} is on the classpath, the request factory bean
 * exists and {@code oncely.rest-client.enabled} is not false. Every {@code POST} and {@code PATCH}
 * of a {@code RestClient} built from Boot's builder then goes through the interceptor (one key per
 * call across its retries; a durable intent with {@code IntentAttributes}); other methods pass
 * through unchanged. A bean named {@code oncelyRestClientCustomizer} replaces it.
 */
@AutoConfiguration(after = OncelyAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.boot.restclient.RestClientCustomizer",
    "org.springframework.web.client.RestClient"})
@ConditionalOnBean(OncelyClientHttpRequestFactory.class)
@ConditionalOnProperty(prefix = "oncely.rest-client", name = "enabled", havingValue = "true",
    matchIfMissing = true)
public class OncelyRestClientAutoConfiguration {
  /** Creates the auto-configuration; Spring calls it. */
  public OncelyRestClientAutoConfiguration() {}

  @Bean
  @ConditionalOnMissingBean(name = "oncelyRestClientCustomizer")
  RestClientCustomizer oncelyRestClientCustomizer(OncelyClientHttpRequestFactory factory) {
    return builder -> builder.requestFactory(factory);
  }
}
