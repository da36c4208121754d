/**
 * The load driver behind {@code run} and {@code resume}: numbered payment intents through the
 * idempotent client with a durable store, resumable after a crash.
 */
package dev.oncely.examples.load;
