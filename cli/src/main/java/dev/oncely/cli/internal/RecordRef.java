package dev.oncely.cli.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import java.util.function.Predicate;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * How an operator names one record, and what each form finds:
 * <ul>
 *   <li>{@code --key} with {@code --scope} and {@code --operation}: exactly that record, finished
 *       or not;
 *   <li>{@code --business-id} with {@code --scope} and {@code --operation}: the record carrying it
 *       there, finished or not;
 *   <li>its short key hash as {@code list} prints it (or a unique prefix of at least 4 digits), or
 *       {@code --business-id} alone: the unfinished records first; when none matches, the
 *       finished ones, if the store can enumerate them ({@link IntentStore#forEachFinished}: every
 *       store of this project can). {@code --scope} and {@code --operation} narrow a hash.
 * </ul>
 */
public final class RecordRef {
  @Parameters(index = "0", arity = "0..1", paramLabel = "KEY_HASH",
      description = "The short key hash from `list` (k#0a1b2c...), or a unique prefix of it:"
          + " unfinished records first, then finished ones.")
  String hash;

  @Option(names = "--business-id", paramLabel = "ID",
      description = "The record's business id: unfinished records first, then finished ones;"
          + " --scope and --operation narrow it.")
  String businessId;

  @Option(names = "--key", paramLabel = "KEY",
      description = "The full idempotency key (needs --scope and --operation).")
  String key;

  @Option(names = "--scope", paramLabel = "SCOPE", description = "The record's scope.")
  String scope;

  @Option(names = "--operation", paramLabel = "OP", description = "The record's operation.")
  String operation;

  /**
   * Finds the one record this reference names.
   *
   * @throws CliException when the reference is malformed, matches nothing, or matches several
   */
  IntentRecord find(IntentStore store) {
    int given = (hash != null ? 1 : 0) + (businessId != null ? 1 : 0) + (key != null ? 1 : 0);
    if (given != 1) {
      throw CliException.usage("name exactly one record: a KEY_HASH, --business-id or --key");
    }
    if ((scope == null) != (operation == null)) {
      throw CliException.usage("--scope and --operation go together");
    }
    if (key != null) {
      if (scope == null) {
        throw CliException.usage("--key needs --scope and --operation");
      }
      IntentId id = RecordSearch.id(scope, operation, key);
      return store.get(id).orElseThrow(() -> CliException.failure("no record " + id));
    }
    if (businessId != null && scope != null) {
      return store.findByBusinessId(scope, operation, businessId).orElseThrow(() ->
          CliException.failure("no record with that business id in " + scope + "/" + operation));
    }
    String digits = hash == null ? null : RecordSearch.hashDigits(hash);
    Predicate<IntentRecord> named = r -> (digits != null
        ? r.id().safeKey().startsWith("k#" + digits) : businessId.equals(r.businessId()))
        && (scope == null || (r.id().scope().equals(scope)
            && r.id().operation().equals(operation)));
    String what = digits != null ? "k#" + digits : "business id " + businessId;
    return RecordSearch.unique(store, named, what, "record", "name a finished one with"
        + " --business-id or --key plus --scope and --operation");
  }
}
