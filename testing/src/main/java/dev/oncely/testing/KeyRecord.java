package dev.oncely.testing;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One key's record in the {@link KeyStore}: the fingerprint of its first request, when it was
 * created, the stored answer (null while the first request is in progress) and the operation of
 * its effect. Mutable; guarded by the server's {@link ServerLock}.
 */
final class KeyRecord {
  /** Changed only by {@link Fault#lostFingerprint()}. */
  String fingerprint;
  final Instant createdAt;
  @Nullable Answer stored;
  Operations.@Nullable Operation operation;
  /** How many repeats were told "in progress"; a held late original waits for the first. */
  int inProgressAnswers;
  /** Repeats still to be told "in progress" after the answer was stored. */
  int busyRepeats;

  KeyRecord(String fingerprint, Instant createdAt) {
    this.fingerprint = fingerprint;
    this.createdAt = createdAt;
  }

  /** Stores {@code answer} as the one every repeat replays; returns it. */
  Answer store(Answer answer) {
    stored = answer;
    return answer;
  }
}
