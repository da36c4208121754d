package dev.oncely.persistence;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What a store opened under {@link CorruptionPolicy#QUARANTINE} set aside: the damaged files, where
 * they were moved, and why. The intents they held are not in the new store; an operator can
 * inspect the moved files and reconcile those intents with the server.
 *
 * @param store the path the store was opened at
 * @param movedTo the damaged files under their new names
 * @param reason the verification failure, with numbers
 */
public record QuarantineReport(Path store, List<Path> movedTo, String reason) {
  /** Validates and copies the fields. */
  public QuarantineReport {
    Objects.requireNonNull(store, "store");
    movedTo = List.copyOf(movedTo);
    Objects.requireNonNull(reason, "reason");
  }
}
