/**
 * The server half in Spring Boot: {@link dev.oncely.spring.boot.server.OncelyServerAutoConfiguration}
 * serves idempotent endpoints (the {@link dev.oncely.spring.boot.server.IdempotentEndpoint} handler
 * methods and the {@code oncely.server.endpoints} routes) through {@code oncely-server}'s
 * {@code IdempotencyFilter}, on a receipt store of its own, configured by the {@code
 * oncely.server.*} {@link dev.oncely.spring.boot.server.OncelyServerProperties}; {@link
 * dev.oncely.spring.boot.server.TransactionalRecoveryPoint} records a handler's recovery point
 * when its transaction commits. See {@code docs/spring.md}, "Idempotent endpoints".
 *
 * <p>Every type in this package is null-marked (JSpecify).
 */
@NullMarked
package dev.oncely.spring.boot.server;

import org.jspecify.annotations.NullMarked;
