/**
 * Spring Boot auto-configuration for Oncely: {@link dev.oncely.spring.boot.OncelyAutoConfiguration}
 * and the {@code oncely.*} {@link dev.oncely.spring.boot.OncelyProperties}. See {@code
 * docs/spring.md}.
 *
 * <p>Every type in this package is null-marked (JSpecify).
 */
@NullMarked
package dev.oncely.spring.boot;

import org.jspecify.annotations.NullMarked;
