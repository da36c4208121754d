/**
 * The reference payments server: a real loopback HTTP server that implements the server side of
 * the idempotency contract and injects seeded faults. Start it with {@link
 * dev.oncely.examples.server.ReferenceServer#builder()}.
 */
package dev.oncely.examples.server;
