/**
 * Small, runnable examples of the public API, each a class with a {@code main} that starts its own
 * {@link dev.oncely.examples.server.ReferenceServer} on loopback, so it runs with nothing else:
 * {@link InterceptorExample}, {@link DurableIntentExample}, {@link RestartAndResumeExample},
 * {@link CustomDialectExample}, {@link OutcomesAndEventsExample}. Run one with {@code java -cp
 * examples/target/oncely-examples.jar dev.oncely.examples.basics.InterceptorExample}.
 */
package dev.oncely.examples.basics;
