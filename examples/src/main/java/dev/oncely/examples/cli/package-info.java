/** Subcommands of {@code oncely-examples.jar} and their option parsing. */
package dev.oncely.examples.cli;
