/**
 * The reference payments server: the testing kit's idempotent server ({@code dev.oncely.testing})
 * configured for a payments API on a loopback MockWebServer, with the demo's seeded faults. Start
 * it with {@link dev.oncely.examples.server.ReferenceServer#builder()}.
 */
package dev.oncely.examples.server;
