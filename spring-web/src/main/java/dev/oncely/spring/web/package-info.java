/**
 * Oncely for Spring's HTTP clients: {@link dev.oncely.spring.web.OncelyClientHttpRequestFactory}
 * puts the {@link dev.oncely.client.IdempotencyInterceptor} under {@code RestClient} and
 * {@code RestTemplate}, and {@link dev.oncely.spring.web.IntentAttributes} names the intent of a
 * call as a request attribute. See {@code docs/spring.md}.
 *
 * <p>Every type in this package is null-marked (JSpecify).
 */
@NullMarked
package dev.oncely.spring.web;

import org.jspecify.annotations.NullMarked;
