package dev.oncely.testing;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The idempotency-key protocol for a {@code POST}, {@code PUT}, {@code PATCH} or {@code DELETE}:
 * the first request of a key reserves its record atomically and goes to the {@link
 * EffectHandler}; a repeat gets the stored answer, "in progress" or the mismatch answer. Also
 * applies the faults that act on the record ({@link Fault#lostRecord()}, {@link
 * Fault#lostFingerprint()}) and holds a {@link Fault#lateOriginal()} until a retry of its key was
 * told "in progress".
 */
final class Submissions {
  private final ServerConfig config;
  private final ServerLock lock;
  private final KeyStore keys;
  private final EffectHandler handler;
  private final Operations operations;

  Submissions(ServerConfig config, ServerLock lock, KeyStore keys, EffectHandler handler,
      Operations operations) {
    this.config = config;
    this.lock = lock;
    this.keys = keys;
    this.handler = handler;
    this.operations = operations;
  }

  /**
   * The intent {@code r} belongs to, for the ledger: the {@linkplain
   * IdempotentServer.Builder#intentOf extractor}'s, else the key, else {@code keyless#n}; null
   * for a request the server will refuse for its missing key.
   */
  @Nullable String intentOf(ReceivedRequest r) {
    String key = keys.keyOrNull(r);
    if (key == null && !config.acceptKeyless) {
      return null;
    }
    String intent = config.intentOf == null ? null : config.intentOf.apply(r);
    if (intent == null) {
      intent = key != null ? key : "keyless#" + r.number();
    }
    return intent;
  }

  /**
   * Handles {@code r}, whose {@link #intentOf intent} is {@code intent}, by its key.
   *
   * @throws InterruptedException if held as a late original and interrupted
   */
  Answer submit(ReceivedRequest r, @Nullable String intent, @Nullable Fault fault)
      throws InterruptedException {
    String key;
    try {
      key = keys.keyOf(r);
    } catch (Keys.MalformedKeyException e) {
      return Answer.json(400, "{\"error\":" + JsonText.quote(e.getMessage()) + "}")
          .as(ServedAnswer.Kind.INVALID_KEY);
    }
    if (key == null && !config.acceptKeyless) {
      return Answer.json(400,
          "{\"error\":" + JsonText.quote(config.keyHeader + " is required") + "}")
          .as(ServedAnswer.Kind.INVALID_KEY);
    }
    // Past the key checks an intent always exists: the request has a key, or keyless ones run.
    String known = Objects.requireNonNull(intent, "intent");
    if (key == null) {
      EffectHandler.Executed done;
      lock.lock();
      try {
        done = handler.execute(r, known, null, null, null, false, fault);
      } finally {
        lock.unlock();
      }
      return handler.announce(done, null);
    }
    String id = keys.idOf(r, key);
    String fingerprint = Fingerprints.of(r, config.fingerprint, config.fingerprintQuery);
    KeyRecord rec;
    EffectHandler.Executed done = null;
    lock.lock();
    try {
      keys.expire(id);
      if (fault != null && fault.kind() == Fault.Kind.LOST_RECORD) {
        keys.lose(id);
      }
      KeyRecord existing = keys.get(id);
      if (fault != null && fault.kind() == Fault.Kind.LOST_FINGERPRINT && existing != null) {
        existing.fingerprint = "garbled:" + existing.fingerprint;
      }
      if (existing != null) {
        return repeat(existing, fingerprint);
      }
      rec = keys.reserve(id, fingerprint);
      if (fault == null || fault.kind() != Fault.Kind.LATE_ORIGINAL) {
        done = handler.execute(r, known, key, id, rec, keys.forgot(id), fault);
      }
    } finally {
      lock.unlock();
    }
    return done != null ? handler.announce(done, rec) : late(r, known, key, id, rec);
  }

  /** Holds a late original until a retry was told "in progress" (or lateFor passed). */
  private Answer late(ReceivedRequest r, String intent, String key, String id, KeyRecord rec)
      throws InterruptedException {
    long deadline = System.nanoTime() + config.lateFor.toNanos();
    EffectHandler.Executed done;
    lock.lock();
    try {
      while (rec.inProgressAnswers == 0 && !lock.closed()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        lock.awaitInProgressTold(left);
      }
      if (keys.get(id) != rec) {
        return Answer.json(500, "{\"error\":\"the record was lost while processing\"}")
            .as(ServedAnswer.Kind.HANDLER_ERROR);
      }
      done = handler.execute(r, intent, key, id, rec, keys.forgot(id), null);
    } finally {
      lock.unlock();
    }
    return handler.announce(done, rec);
  }

  /** The answer to a repeat of {@code rec}'s key. The caller holds the lock. */
  private Answer repeat(KeyRecord rec, String fingerprint) {
    if (!rec.fingerprint.equals(fingerprint)) {
      MismatchAnswer m = config.mismatch;
      return new Answer(m.statusCode(), okhttp3.Headers.of("Content-Type", m.contentType()),
          m.body(), ServedAnswer.Kind.MISMATCH);
    }
    if (rec.stored == null || rec.busyRepeats > 0) {
      if (rec.stored != null) {
        rec.busyRepeats--;
      }
      return inProgress(rec);
    }
    Answer replay = rec.stored;
    Operations.Operation op = rec.operation;
    if (op != null) {
      operations.completeIfDue(op);
    }
    if (replay.status() == 202 && op != null && !op.done && config.inProgressWhileAccepted) {
      return inProgress(rec);
    }
    if (replay.status() == 202 && op != null && op.done && !config.replayAcceptedForever) {
      replay = op.result;
    } else if (replay.status() == 202 && !config.locationOnReplay) {
      replay = replay.without("Location");
    }
    return replay.with(IdempotentServer.REPLAYED_HEADER, "true").as(ServedAnswer.Kind.REPLAY);
  }

  /** The in-progress answer to a repeat of {@code rec}'s key, counted. */
  private Answer inProgress(KeyRecord rec) {
    rec.inProgressAnswers++;
    lock.signalInProgressTold();
    return config.withRetryAfter(Answer.of(config.inProgressStatus, config.inProgressContentType,
        config.inProgressBody).as(ServedAnswer.Kind.IN_PROGRESS));
  }
}
