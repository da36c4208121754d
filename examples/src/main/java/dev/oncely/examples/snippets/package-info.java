/**
 * Small runnable examples of the public API, each a class with a {@code main} that starts the
 * reference server in-process: {@link dev.oncely.examples.snippets.InterceptorExample} (plain
 * OkHttp), {@link dev.oncely.examples.snippets.TokenRefreshExample} (an app's {@code
 * Authenticator} under the interceptor), {@link
 * dev.oncely.examples.snippets.DurableIntentExample} (intent API with SQLite), {@link
 * dev.oncely.examples.snippets.RestartResumeExample}, {@link
 * dev.oncely.examples.snippets.CustomDialectExample} and {@link
 * dev.oncely.examples.snippets.OutcomesAndEventsExample}.
 */
package dev.oncely.examples.snippets;
