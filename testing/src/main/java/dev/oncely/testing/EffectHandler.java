package dev.oncely.testing;

import org.jspecify.annotations.Nullable;

/**
 * The server's application handler for a request it has not seen before: the {@linkplain
 * IdempotentServer.Builder#businessRule business rule} may refuse it, a {@link
 * Fault#handlerError(int)} may fail it, else it commits one effect in the {@link EffectLedger},
 * opens the effect's operation and answers {@code 201} (or {@code 202} when the operation is
 * accepted). A committed effect's answer is stored only after the {@linkplain
 * IdempotentServer.Builder#onEffect effect listener} returned: a crash test holds the server in
 * that moment, when the effect exists and a repeat of its key still finds it in progress.
 */
final class EffectHandler {
  private final ServerConfig config;
  private final ServerLock lock;
  private final EffectLedger ledger;
  private final KeyStore keys;
  private final Operations operations;

  /**
   * What {@link #execute} decided for a new request.
   *
   * @param answer the answer to send
   * @param effect the effect committed, or null when none was
   * @param stored the answer {@link #announce} stores for the key; null when none was committed
   */
  record Executed(Answer answer, EffectLedger.@Nullable Effect effect, @Nullable Answer stored) {
    static Executed without(Answer answer) {
      return new Executed(answer, null, null);
    }
  }

  EffectHandler(ServerConfig config, ServerLock lock, EffectLedger ledger, KeyStore keys,
      Operations operations) {
    this.config = config;
    this.lock = lock;
    this.ledger = ledger;
    this.keys = keys;
    this.operations = operations;
  }

  /**
   * Refuses, fails or commits the new request {@code r}. A refusal or failure is stored in {@code
   * rec} (null for a keyless request, whose record {@code id} is null too) here; a committed
   * effect's answer is stored by {@link #announce}. The caller holds the lock.
   */
  Executed execute(ReceivedRequest r, String intent, @Nullable String key, @Nullable String id,
      @Nullable KeyRecord rec, boolean afterForgot, @Nullable Fault fault) {
    String problem = config.businessRule == null ? null : config.businessRule.apply(r);
    if (problem != null) {
      return Executed.without(store(rec,
          Answer.json(400, "{\"error\":" + JsonText.quote(problem) + "}")
              .as(ServedAnswer.Kind.REFUSED)));
    }
    if (fault != null && fault.kind() == Fault.Kind.HANDLER_ERROR) {
      Answer error = Answer.json(fault.status(), "{\"error\":\"the handler failed\"}")
          .as(ServedAnswer.Kind.HANDLER_ERROR);
      if (config.serverErrors == ServerErrors.REPLAYED || rec == null) {
        return Executed.without(store(rec, error));
      }
      keys.release(id);
      return Executed.without(error);
    }
    EffectLedger.Effect effect = ledger.add(intent, key, r.number(), afterForgot);
    Operations.Operation op = operations.open(effect, r);
    if (rec != null) {
      rec.operation = op;
    }
    if (fault != null && fault.kind() == Fault.Kind.PROCESSING_SLOWLY) {
      operations.complete(op);
      if (rec != null) {
        rec.busyRepeats = fault.status();
      }
      Answer result = op.result.withStatus(201).as(ServedAnswer.Kind.EFFECT);
      return new Executed(operations.processing(202, op).as(ServedAnswer.Kind.EFFECT), effect,
          result);
    }
    if (!config.asynchronous.test(r)) {
      operations.complete(op);
      Answer result = op.result.withStatus(201).as(ServedAnswer.Kind.EFFECT);
      if (config.locationOnCreated) {
        result = result.with("Location", operations.statusUrl(op));
      }
      return new Executed(result, effect, result);
    }
    operations.accept(op);
    Answer accepted = operations.processing(202, op).with("Location", operations.statusUrl(op))
        .as(ServedAnswer.Kind.EFFECT);
    return new Executed(accepted, effect, accepted);
  }

  /**
   * Tells the effect listener (outside the lock, the record still in progress), then stores the
   * answer of a committed effect in {@code rec}; returns the answer to send. The caller does not
   * hold the lock.
   */
  Answer announce(Executed done, @Nullable KeyRecord rec) {
    if (done.effect() == null) {
      return done.answer();
    }
    if (config.onEffect != null) {
      config.onEffect.accept(done.effect());
    }
    lock.lock();
    try {
      store(rec, done.stored());
      return done.answer();
    } finally {
      lock.unlock();
    }
  }

  private static Answer store(@Nullable KeyRecord rec, Answer answer) {
    return rec == null ? answer : rec.store(answer);
  }
}
