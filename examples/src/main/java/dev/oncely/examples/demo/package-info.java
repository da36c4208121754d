/**
 * The one-command demo: {@link dev.oncely.examples.demo.Demo} runs the SDK in a child JVM that is
 * killed and resumed, then a naive client, against the faulty reference server, and renders the
 * comparison.
 */
package dev.oncely.examples.demo;
