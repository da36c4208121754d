/**
 * Runnable programs: {@link dev.oncely.examples.Main} dispatches the subcommands of {@code
 * java -jar oncely-examples.jar} (the demo, the load driver, the reference server, the reference shop on the server half).
 */
package dev.oncely.examples;
