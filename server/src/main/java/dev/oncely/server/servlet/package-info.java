/**
 * The server half in any Jakarta Servlet 6 container (Tomcat, Jetty, Spring MVC, Spring Boot):
 * {@link dev.oncely.server.servlet.IdempotencyFilter} serves the routes of an {@link
 * dev.oncely.server.servlet.EndpointRoutes} table through {@link
 * dev.oncely.server.IdempotentEndpoints}, and the status URLs of pending requests.
 */
@NullMarked
package dev.oncely.server.servlet;

import org.jspecify.annotations.NullMarked;
