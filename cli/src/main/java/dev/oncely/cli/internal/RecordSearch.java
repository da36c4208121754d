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

/**
 * The one search behind every reference an operator gives by a key hash or an indexed id alone:
 * the unfinished records first; when none matches, the finished ones, if the store can enumerate
 * them ({@link IntentStore#forEachFinished}); exactly one match, or a refusal naming the
 * candidates.
 */
final class RecordSearch {
  static final int MIN_HASH_DIGITS = 4;

  private RecordSearch() {}

  /**
   * The one record {@code named} accepts.
   *
   * @param what how the reference reads in messages ({@code k#0a1b}, {@code business id X})
   * @param noun what is searched for ({@code record}, {@code receipt})
   * @param finishedHint how to name a finished one when the store cannot enumerate them
   * @throws CliException when nothing or several records match
   */
  static IntentRecord unique(IntentStore store, Predicate<IntentRecord> named, String what,
      String noun, String finishedHint) {
    List<IntentRecord> matches = store.listUnfinished().stream().filter(named)
        .collect(Collectors.toList());
    if (matches.isEmpty()) {
      List<IntentId> ids = new ArrayList<>();
      try {
        store.forEachFinished(r -> {
          if (named.test(r)) {
            ids.add(r.id());
          }
        });
      } catch (UnsupportedOperationException e) {
        throw CliException.failure("no unfinished " + noun + " matches " + what + "; this store"
            + " cannot search finished ones that way: " + finishedHint);
      }
      // Re-read through the store: a match is verified like any other read.
      matches = ids.stream().map(store::get).flatMap(Optional::stream)
          .collect(Collectors.toList());
      if (matches.isEmpty()) {
        throw CliException.failure("no " + noun + " matches " + what
            + " (unfinished or finished)");
      }
    }
    if (matches.size() > 1) {
      throw CliException.usage(what + " matches " + matches.size() + " " + noun + "s: "
          + matches.stream().map(r -> r.id().toString() + " " + r.state())
              .collect(Collectors.joining(", ")) + "; give more digits or --scope and --operation");
    }
    return matches.get(0);
  }

  /**
   * The hex digits of a short key hash as {@code list} prints it ({@code k#} optional), lower
   * case, without {@code k#}.
   *
   * @throws CliException if it is not {@code k#} and at least {@value #MIN_HASH_DIGITS} hex digits
   */
  static String hashDigits(String hash) {
    String wanted = hash.trim().toLowerCase(Locale.ROOT);
    if (wanted.startsWith("k#")) {
      wanted = wanted.substring(2);
    }
    if (wanted.length() < MIN_HASH_DIGITS
        || !wanted.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
      throw CliException.usage("a key hash is k# and at least " + MIN_HASH_DIGITS
          + " hex digits, was '" + hash + "'");
    }
    return wanted;
  }

  /** The id, or a usage error naming the part that is not valid. */
  static IntentId id(String scope, String operation, String key) {
    try {
      return IntentId.of(scope, operation, key);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
  }
}
