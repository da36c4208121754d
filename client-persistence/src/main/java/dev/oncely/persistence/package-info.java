/**
 * Durable {@link dev.oncely.client.IntentStore} engines that survive crashes and restarts,
 * and their options ({@link dev.oncely.client.spi.StoreEncryption}).
 */
@NullMarked
package dev.oncely.persistence;

import org.jspecify.annotations.NullMarked;
