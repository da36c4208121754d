package dev.oncely.client.internal.drive;

import dev.oncely.client.internal.StoredHeaders;
import dev.oncely.client.DuplicateIntentException;
import dev.oncely.client.Identifiers;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.InvalidIntentException;
import dev.oncely.client.PayloadMismatchException;
import dev.oncely.client.StoreException;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.payload.Fingerprints;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Creates an intent's record or joins the one that exists, for both entry points: create first
 * (a new intent costs one durable write and no read), and only when the store refuses it as a
 * duplicate, find the record by key, then by business id, and check that it holds the same
 * payload. The refusal of a changed payload happens before any network I/O.
 *
 * <p>A finished record found this way goes into the finished-record cache, so the next repeat is
 * answered without a store round trip. Records are cached when a repeat reads them, not when
 * they finish: repeats are rare, and a cache write per completed intent is a measurable share of
 * the client's CPU (docs/benchmarks.md).
 */
public final class Admission {
  /**
   * The record to drive. {@code created}: this admission created it, already claimed ({@code
   * IN_FLIGHT}, nothing sent). {@code failure}: the store failed, so the record may or may not be
   * durable; {@code record} is then the one that was to be created.
   */
  public record Admitted(IntentRecord record, boolean created, StoreException failure) {}

  private final DriveSettings s;

  /** Admits records into {@code settings.store()}. */
  public Admission(DriveSettings settings) {
    this.s = settings;
  }

  /**
   * Creates {@code fresh} or joins the intent's existing record.
   *
   * @throws InvalidIntentException if the method of {@code fresh} is not an HTTP token; nothing is
   *     stored or sent
   * @throws PayloadMismatchException if the existing record holds another payload
   */
  public Admitted admit(IntentRecord fresh) {
    if (!Identifiers.isToken(fresh.method())) {
      // The rule of every new intent's method, here for the interceptor's requests (an IntentSpec
      // refuses the method when it is set). A record may hold more (IntentRecord): a stored one
      // still resumes, but no new one is made with a method an IntentSpec would refuse.
      throw new InvalidIntentException("method", "must be an HTTP token like POST");
    }
    try {
      s.store().create(fresh);
      s.listener().onEvent(new IntentEvent.Recorded(fresh.id()));
      return new Admitted(fresh, true, null);
    } catch (DuplicateIntentException duplicate) {
      IntentRecord existing;
      try {
        existing = find(fresh);
      } catch (StoreException lookup) {
        lookup.addSuppressed(duplicate);
        return new Admitted(fresh, false, lookup);
      }
      if (existing == null) {
        return new Admitted(fresh, false, new StoreException("the store refused " + fresh.id()
            + " as a duplicate but holds no record of it by key or business id", duplicate));
      }
      if (!samePayload(existing, fresh)) {
        throw new PayloadMismatchException(existing.id());
      }
      if (existing.state().isTerminal() && s.finished() != null) {
        s.finished().put(existing.id(), existing);
      }
      return new Admitted(existing, false, null);
    } catch (StoreException e) {
      return new Admitted(fresh, false, e);
    }
  }

  private IntentRecord find(IntentRecord fresh) {
    Optional<IntentRecord> byKey = s.store().get(fresh.id());
    if (byKey.isPresent() || fresh.businessId() == null) {
      return byKey.orElse(null);
    }
    return s.store().findByBusinessId(fresh.id().scope(), fresh.id().operation(),
        fresh.businessId()).orElse(null);
  }

  /**
   * Whether {@code existing} holds the payload of {@code candidate}: the same bytes (compared by
   * their digest once the finished record dropped its request), media type and content coding
   * (whatever either fingerprint says), or the same fingerprint. A multipart record sent without a
   * content coding is also compared by the fingerprint its stored bytes have today, because one
   * stored by an earlier release holds the hash of its bytes and boundary, which a form re-issued
   * under a fresh boundary never matches (such a record keeps its request when it finishes:
   * {@link #matchedByItsBytes}).
   */
  public static boolean samePayload(IntentRecord existing, IntentRecord candidate) {
    if (existing.fingerprint().equals(candidate.fingerprint())) {
      return true;
    }
    // The bytes second: once the request was dropped, comparing them hashes the candidate's.
    String coding = StoredHeaders.contentCoding(existing.headers());
    if (Objects.equals(existing.mediaType(), candidate.mediaType())
        && Fingerprints.sameCodings(coding, StoredHeaders.contentCoding(candidate.headers()))
        && existing.hasRequestBytes(candidate.body())) {
      return true;
    }
    return legacyMultipart(existing, coding)
        && Fingerprints.ofPayload(existing.body(), existing.mediaType(), Set.of())
        .equals(candidate.fingerprint());
  }

  /**
   * Whether a repeat of {@code record} can be recognized only by its stored bytes: a multipart
   * record without a content coding whose stored fingerprint is not the one its bytes have today
   * (written by an earlier release). Such a record keeps its request when it finishes.
   */
  static boolean matchedByItsBytes(IntentRecord record) {
    return legacyMultipart(record, StoredHeaders.contentCoding(record.headers()))
        && !Fingerprints.ofPayload(record.body(), record.mediaType(), Set.of())
        .equals(record.fingerprint());
  }

  private static boolean legacyMultipart(IntentRecord record, String coding) {
    return coding == null && !record.requestDropped()
        && Fingerprints.isMultipart(record.mediaType());
  }
}
