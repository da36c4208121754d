package dev.oncely.cli;

import dev.oncely.client.spi.IntentId;
import java.util.List;

/**
 * Optional capability of a store a {@link StoreOpener} returns: finds finished (terminal) records
 * by their short key hash or by business id alone, which the {@code IntentStore} SPI cannot (it
 * finds a finished record only by its full id, or by business id within a scope and operation).
 * The CLI uses it when a reference matches no unfinished record. Implementations read, never
 * write, and may scan every finished record, so a call costs time proportional to their number.
 */
public interface FinishedRecordSearch {
  /**
   * The ids of the finished records whose {@link IntentId#safeKey() short key hash} starts with
   * {@code "k#" + hexDigits}, optionally only within {@code scope} and {@code operation}.
   *
   * @param hexDigits lower-case hex digits, at least 4
   * @param scope the scope, or null for every scope
   * @param operation the operation, or null for every operation (given together with scope)
   * @throws dev.oncely.client.spi.StoreException if the engine fails
   */
  List<IntentId> finishedByKeyHash(String hexDigits, String scope, String operation);

  /**
   * The ids of the finished records carrying {@code businessId}, in every scope and operation.
   *
   * @throws dev.oncely.client.spi.StoreException if the engine fails
   */
  List<IntentId> finishedByBusinessId(String businessId);
}
