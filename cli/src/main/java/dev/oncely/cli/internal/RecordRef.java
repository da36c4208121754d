package dev.oncely.cli.internal;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;
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
  private static final int MIN_HASH_DIGITS = 4;

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
      IntentId id = id(scope, operation, key);
      return store.get(id).orElseThrow(() -> CliException.failure("no record " + id));
    }
    if (businessId != null && scope != null) {
      return store.findByBusinessId(scope, operation, businessId).orElseThrow(() ->
          CliException.failure("no record with that business id in " + scope + "/" + operation));
    }
    String digits = hash == null ? null : hashDigits();
    Predicate<IntentRecord> named = r -> (digits != null
        ? r.id().safeKey().startsWith("k#" + digits) : businessId.equals(r.businessId()))
        && (scope == null || (r.id().scope().equals(scope)
            && r.id().operation().equals(operation)));
    List<IntentRecord> matches = store.listUnfinished().stream().filter(named)
        .collect(Collectors.toList());
    String what = digits != null ? "k#" + digits : "business id " + businessId;
    if (matches.isEmpty()) {
      List<IntentId> ids = new ArrayList<>();
      try {
        store.forEachFinished(r -> {
          if (named.test(r)) {
            ids.add(r.id());
          }
        });
      } catch (UnsupportedOperationException e) {
        throw CliException.failure("no unfinished record matches " + what + "; this store cannot"
            + " search finished records by " + (digits != null ? "key hash" : "business id alone")
            + ": name a finished one with --business-id or --key plus --scope and --operation");
      }
      // Re-read through the store: a match is verified like any other read.
      matches = ids.stream().map(store::get).flatMap(Optional::stream)
          .collect(Collectors.toList());
      if (matches.isEmpty()) {
        throw CliException.failure("no record matches " + what + " (unfinished or finished)");
      }
    }
    if (matches.size() > 1) {
      throw CliException.usage(what + " matches " + matches.size() + " records: "
          + matches.stream().map(r -> r.id().toString() + " " + r.state())
              .collect(Collectors.joining(", ")) + "; give more digits or --scope and --operation");
    }
    return matches.get(0);
  }

  /** The hex digits of the hash, lower case, without {@code k#}. */
  private String hashDigits() {
    String wanted = hash.trim().toLowerCase(Locale.ROOT);
    if (wanted.startsWith("k#")) {
      wanted = wanted.substring(2);
    }
    if (wanted.length() < MIN_HASH_DIGITS || !wanted.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
      throw CliException.usage("a key hash is k# and at least " + MIN_HASH_DIGITS
          + " hex digits, was '" + hash + "'");
    }
    return wanted;
  }

  private static IntentId id(String scope, String operation, String key) {
    try {
      return IntentId.of(scope, operation, key);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
  }
}
