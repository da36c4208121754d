package dev.oncely.client.property;

import dev.oncely.client.IntentOutcome;
import dev.oncely.testing.EffectLedger;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The promises checked after every generated case, each a sentence that names what broke. A
 * {@link Promises} collects the broken ones; the test asserts there are none.
 */
final class Promises {
  private final IdempotentServer server;
  private final String intent;
  private final List<String> broken = new ArrayList<>();

  Promises(IdempotentServer server, String intent) {
    this.server = server;
    this.intent = intent;
  }

  List<String> broken() {
    return List.copyOf(broken);
  }

  void fail(String what) {
    broken.add(what);
  }

  /** At most one effect per intent, unless the server itself forgot the key. */
  void atMostOneEffect() {
    EffectLedger ledger = server.ledger();
    if (!ledger.duplicatesCausedByClient().isEmpty()) {
      fail("more than one effect for the intent: " + ledger.effectsOf(intent));
    }
  }

  /** No request carried the credential header to the foreign origin. */
  void noCredentialAt(String foreignOrigin, String header) {
    for (ReceivedRequest r : server.requests().to(foreignOrigin)) {
      if (r.has(header)) {
        fail(header + " sent to the foreign origin: " + r);
      }
    }
  }

  /** The outcome says something the server's ledger agrees with, and carries a reason. */
  void truthful(String phase, IntentOutcome outcome) {
    boolean effect = server.ledger().hasEffect(intent);
    if (outcome == null) {
      fail(phase + ": no outcome");
    } else if (outcome instanceof IntentOutcome.Completed c) {
      if (!effect) {
        fail(phase + ": Completed (" + c.response().status() + ") but the server has no effect");
      }
    } else if (outcome instanceof IntentOutcome.Rejected r) {
      if (effect) {
        fail(phase + ": Rejected (" + r.response().status() + ") but the effect exists");
      }
    } else if (outcome instanceof IntentOutcome.KeyConflict k) {
      if (effect) {
        fail(phase + ": KeyConflict (" + k.response().status() + ") but the effect exists");
      }
    } else if (outcome instanceof IntentOutcome.Pending p) {
      if (p.detail().isBlank()) {
        fail(phase + ": Pending " + p.reason() + " without a detail");
      }
    } else if (outcome instanceof IntentOutcome.NeedsReconciliation n) {
      if (n.reason().isBlank()) {
        fail(phase + ": NeedsReconciliation without a reason");
      }
    }
  }

  /** What the app learns from a plain OkHttp call through the interceptor, checked likewise. */
  void truthfulResponse(String phase, int status, String failure) {
    boolean effect = server.ledger().hasEffect(intent);
    if (failure != null) {
      return;
    }
    if (status >= 200 && status < 300 && status != 202 && !effect) {
      fail(phase + ": the app got " + status + " (done) but the server has no effect");
    }
    boolean refusal = status >= 400 && status < 500 && status != 408 && status != 409
        && status != 425 && status != 429;
    if (refusal && effect) {
      fail(phase + ": the app got " + status + " (refused) but the effect exists");
    }
  }
}
