package dev.oncely.client;

import java.util.Objects;

/**
 * The argument rules of {@link IntentStore#create}, {@link IntentStore#compareAndSet} and {@link
 * IntentStore#claimDue}, in one place so every engine refuses the same inputs with the same
 * messages.
 */
public final class StoreRules {
  private StoreRules() {}

  /**
   * Checks a record passed to {@link IntentStore#create}.
   *
   * @throws NullPointerException if {@code record} is null
   * @throws IllegalArgumentException if its revision is not 0
   */
  public static void checkNew(IntentRecord record) {
    Objects.requireNonNull(record, "record");
    if (record.revision() != 0) {
      throw new IllegalArgumentException(
          "a new record must have revision 0, was " + record.revision() + " for " + record.id());
    }
  }

  /**
   * Checks the arguments of {@link IntentStore#compareAndSet}.
   *
   * @throws NullPointerException if either is null
   * @throws IllegalArgumentException if the ids or business ids differ, or the replacement's
   *     revision is not {@code expected.revision() + 1}
   */
  public static void checkReplacement(IntentRecord expected, IntentRecord replacement) {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(replacement, "replacement");
    if (!expected.id().equals(replacement.id())) {
      throw new IllegalArgumentException(
          "replacement id " + replacement.id() + " differs from expected id " + expected.id());
    }
    if (!Objects.equals(expected.businessId(), replacement.businessId())) {
      throw new IllegalArgumentException("the business id of " + expected.id() + " cannot change");
    }
    if (replacement.revision() != expected.revision() + 1) {
      throw new IllegalArgumentException(
          "replacement revision must be " + (expected.revision() + 1) + ", was "
              + replacement.revision() + " for " + expected.id());
    }
  }

  /**
   * Checks the arguments of {@link IntentStore#claimDue}.
   *
   * @throws NullPointerException if {@code now} is null
   * @throws IllegalArgumentException if {@code limit} is not positive
   */
  public static void checkClaim(java.time.Instant now, int limit) {
    Objects.requireNonNull(now, "now");
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
  }
}
