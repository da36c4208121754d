/**
 * Runnable programs: {@link dev.oncely.examples.Main} dispatches the subcommands of {@code
 * java -jar oncely-examples.jar} (the demo, the load driver, the reference server).
 */
package dev.oncely.examples;
