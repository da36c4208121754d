/** The CLI's commands and helpers; not an API. */
package dev.oncely.cli.internal;
