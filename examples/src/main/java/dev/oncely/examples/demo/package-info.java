/** The {@code demo} subcommand: the SDK against a naive client on a faulty server. */
package dev.oncely.examples.demo;
