/** Durable {@link dev.oncely.client.spi.IntentStore} engines. Work in progress (issue 3). */
package dev.oncely.persistence;
