package dev.oncely.client.property;

import dev.oncely.client.internal.StoredHeaders;
import dev.oncely.client.IntentOutcome;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.event.IntentEvent;
import dev.oncely.client.event.IntentListener;
import dev.oncely.client.internal.http.HttpParts;
import dev.oncely.testing.EffectLedger;
import dev.oncely.testing.Fault;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.ReceivedRequest;
import dev.oncely.testing.ServedAnswer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import okhttp3.HttpUrl;

/**
 * The promises checked after every generated case, each a sentence that names what broke. A
 * {@link Promises} collects the broken ones; the test asserts there are none.
 */
final class Promises {
  /** Submits the clients of a case announced ({@code AttemptStarted}, not a poll). */
  private final AtomicLong submitEvents = new AtomicLong();
  /** The listener every client of a case reports to, so its attempt events can be judged. */
  final IntentListener attemptEvents = event -> {
    if (event instanceof IntentEvent.AttemptStarted started && !started.poll()) {
      submitEvents.incrementAndGet();
    }
  };

  static final String ONE_EFFECT = "at most one effect per intent";
  static final String DONE_MEANS_EFFECT = "Completed only when an effect exists";
  static final String REFUSED_MEANS_NONE = "Rejected/KeyConflict only when no effect exists";
  static final String NO_LEAK = "no credential sent to a foreign origin";
  static final String REASON = "every intent ends with an outcome that carries a reason";
  static final String NO_CROSS_SCOPE = "no response crosses scopes";
  static final String COUNTED = "every request of an intent on the wire is a counted attempt";
  static final String COUNTED_EVENTS = "every request of an intent on the wire is an attempt event";
  static final String REFRESHED = "a 401 that the app's credential refresh answers never ends"
      + " the intent";
  static final String REFUSED_BODY = "a body the SDK cannot hold is refused with a typed error"
      + " before anything is stored or sent";
  static final String AS_FIRST_SENT = "every submit of an intent carries the bytes and"
      + " Content-Encoding it was first sent with";

  private final IdempotentServer server;
  private final String intent;
  private final List<Broken> broken = new ArrayList<>();

  /** One broken promise: which one, and what happened. */
  record Broken(String promise, String text) {
    @Override
    public String toString() {
      return promise + ": " + text;
    }
  }

  Promises(IdempotentServer server, String intent) {
    this.server = server;
    this.intent = intent;
  }

  List<Broken> broken() {
    return List.copyOf(broken);
  }

  void fail(String promise, String what) {
    broken.add(new Broken(promise, what));
  }

  /**
   * At most one effect per intent, not counting the re-executions of requests the server handled
   * after a {@link Fault#lostRecord()} (its inconsistency, which no client can prevent). A resend
   * after the server's key retention counts: the client was told the retention.
   */
  void atMostOneEffect() {
    EffectLedger ledger = server.ledger();
    Set<Integer> lostRecord = server.injectedFaults().stream()
        .filter(f -> f.fault().kind() == Fault.Kind.LOST_RECORD)
        .map(IdempotentServer.InjectedFault::requestNumber).collect(Collectors.toSet());
    long counted = ledger.effectsOf(intent).stream()
        .filter(e -> !(e.afterServerForgot() && lostRecord.contains(e.requestNumber()))).count();
    if (counted > 1) {
      fail(ONE_EFFECT, ledger.countOf(intent) + " effects for the intent under "
          + ledger.keysOf(intent).size() + " keys");
    }
  }

  /** No request carried the credential header to the foreign origin. */
  void noCredentialAt(String foreignOrigin, String header) {
    for (ReceivedRequest r : server.requests().to(foreignOrigin)) {
      if (r.has(header)) {
        fail(NO_LEAK, header + " sent to the foreign origin: " + r);
      }
    }
  }

  /** The outcome says something the server's ledger agrees with, and carries a reason. */
  void truthful(String phase, IntentOutcome outcome) {
    boolean effect = server.ledger().hasEffect(intent);
    if (outcome == null) {
      fail(REASON, phase + ": no outcome");
    } else if (outcome instanceof IntentOutcome.Completed c) {
      if (!effect) {
        fail(DONE_MEANS_EFFECT, phase + ": Completed (" + c.response().status()
            + ") but the server has no effect");
      }
    } else if (outcome instanceof IntentOutcome.Rejected r) {
      if (effect) {
        fail(REFUSED_MEANS_NONE, phase + ": Rejected (" + r.response().status()
            + ") but the effect exists");
      }
    } else if (outcome instanceof IntentOutcome.KeyConflict k) {
      if (effect) {
        fail(REFUSED_MEANS_NONE, phase + ": KeyConflict (" + k.response().status()
            + ") but the effect exists");
      }
    } else if (outcome instanceof IntentOutcome.Pending p) {
      if (p.detail().isBlank()) {
        fail(REASON, phase + ": Pending " + p.reason() + " without a detail");
      }
    } else if (outcome instanceof IntentOutcome.NeedsReconciliation n) {
      if (n.reason().isBlank()) {
        fail(REASON, phase + ": NeedsReconciliation without a reason");
      }
    }
  }

  /** A stored record says something the server's ledger agrees with, and carries a reason. */
  void truthfulRecord(String phase, IntentRecord r) {
    boolean effect = server.ledger().hasEffect(intent);
    IntentState state = r.state();
    if (state == IntentState.COMPLETED && !effect) {
      fail(DONE_MEANS_EFFECT, phase + ": stored COMPLETED but the server has no effect");
    } else if ((state == IntentState.REJECTED || state == IntentState.KEY_CONFLICT) && effect) {
      fail(REFUSED_MEANS_NONE, phase + ": stored " + state + " but the effect exists");
    } else if ((state == IntentState.PENDING || state == IntentState.NEEDS_RECONCILIATION)
        && (r.reason() == null || r.reason().isBlank())) {
      fail(REASON, phase + ": stored " + state + " without a reason");
    }
  }

  /**
   * What the app learns from a plain OkHttp call through the interceptor (the status it got),
   * checked likewise; {@code stored} names the state of the record the store keeps unfinished, if
   * any, so a report tells "refused" apart from "refused on the wire, reconcile in the store".
   */
  void truthfulResponse(String phase, int status, String stored) {
    boolean effect = server.ledger().hasEffect(intent);
    String note = stored == null ? "" : " (the store keeps it " + stored + ")";
    if (status >= 200 && status < 300 && status != 202 && !effect) {
      fail(DONE_MEANS_EFFECT,
          phase + ": the app got " + status + " (done) but the server has no effect" + note);
    }
    boolean refusal = status >= 400 && status < 500 && status != 408 && status != 409
        && status != 425 && status != 429;
    if (refusal && effect) {
      fail(REFUSED_MEANS_NONE,
          phase + ": the app got " + status + " (refused) but the effect exists" + note);
    }
  }

  /**
   * Every request that reached the server with a record's method, key and order (polls carry no
   * key) is one of the attempts counted by the records that send it, whoever sent it: the engine,
   * OkHttp's silent retry, an outer interceptor. Summed over records: one call keeps its key when
   * an outer interceptor runs its chain again, and an untagged call whose credential changed in
   * between continues in the scope of the new credential; the other account of {@code
   * SECOND_SCOPE} sends the same key for another order. Records may count more: an attempt counts
   * from its start, sent or not.
   */
  void everyRequestCounted(List<IntentRecord> records) {
    Map<String, Integer> counted = new TreeMap<>();
    for (IntentRecord r : records) {
      if (r.keyHeader() != null && r.keyValue() != null) {
        counted.merge(wireId(r), r.attempts(), Integer::sum);
      }
    }
    counted.forEach((id, attempts) -> {
      String[] parts = id.split("\n", -1);
      long onWire = onWire(parts);
      if (attempts < onWire) {
        fail(COUNTED, parts[0] + " of " + parts[3] + ": " + onWire + " requests with its key"
            + " reached the server, its records count " + attempts + " attempts");
      }
    });
  }

  /**
   * Every request of an intent that reached the server is one attempt event too ({@code
   * AttemptStarted} of a submit, which the meters and spans count): {@code submitEvents} is at
   * least the requests on the wire that carry the key of one of {@code records}.
   */
  void everyRequestAnAttemptEvent(List<IntentRecord> records) {
    long announced = submitEvents.get();
    Set<String> ids = new TreeSet<>();
    for (IntentRecord r : records) {
      if (r.keyHeader() != null && r.keyValue() != null) {
        ids.add(wireId(r));
      }
    }
    long onWire = 0;
    for (String id : ids) {
      onWire += onWire(id.split("\n", -1));
    }
    if (announced < onWire) {
      fail(COUNTED_EVENTS, onWire + " requests with an intent's key reached the server, "
          + announced + " attempt events were emitted");
    }
  }

  private long onWire(String[] parts) {
    return server.requests().all().stream()
        .filter(q -> q.method().equals(parts[0]))
        .filter(q -> Objects.equals(SimulatedWorld.intentOf(q), parts[3].isEmpty() ? null
            : parts[3]))
        .filter(q -> q.headerValues(parts[1]).stream().anyMatch(v -> unquoted(v).equals(parts[2])))
        .count();
  }

  /**
   * Every request of the intent that carries a body (a submit, never a poll) reached the server
   * with the bytes and {@code Content-Encoding} of the first: whoever resent it (a retry, a
   * re-issued call, either entry point's resume), and however the app would build it today.
   */
  void everySubmitAsFirstSent() {
    List<ReceivedRequest> submits = server.requests().all().stream()
        .filter(q -> q.body().length > 0 && intent.equals(SimulatedWorld.intentOf(q)))
        .toList();
    if (submits.isEmpty()) {
      return;
    }
    ReceivedRequest first = submits.get(0);
    for (ReceivedRequest q : submits) {
      if (!Arrays.equals(q.body(), first.body())
          || !q.headerValues("Content-Encoding").equals(first.headerValues("Content-Encoding"))) {
        fail(AS_FIRST_SENT, "request " + q.number() + " carried " + q.body().length
            + " bytes in " + q.headerValues("Content-Encoding") + ", the first "
            + first.body().length + " bytes in " + first.headerValues("Content-Encoding"));
      }
    }
  }

  /** Method, key header, unquoted key and order of {@code r}, one a line. */
  private static String wireId(IntentRecord r) {
    String order = SimulatedWorld.intentOf(HttpUrl.get(r.url()).encodedPath(), r.body(),
        StoredHeaders.contentCoding(r.headers()));
    return r.method() + "\n" + r.keyHeader() + "\n" + unquoted(r.keyValue()) + "\n"
        + (order == null ? "" : order);
  }

  private static String unquoted(String v) {
    String t = v.trim();
    return t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")
        ? t.substring(1, t.length() - 1) : t;
  }

  /**
   * For an app whose credential refresh answers every {@code 401} the server gives for a stale or
   * missing token: the intent ended with {@code status}, which may be {@code 401} only if a
   * {@code 401} came from something else (a fault, given to a fresh token too).
   */
  void notEndedByAnswered401(String phase, AppCredentials credentials, int status) {
    if (status != 401 || !credentials.refreshAnswersTheServer()) {
      return;
    }
    boolean unanswerable = server.answers().stream()
        .anyMatch(a -> a.status() == 401 && a.kind() != ServedAnswer.Kind.UNAUTHORIZED);
    if (!unanswerable) {
      fail(REFRESHED, phase + ": ended 401 though every 401 of the server was for a token the"
          + " app's credential refresh renews");
    }
  }

  /** {@link #notEndedByAnswered401(String, AppCredentials, int)} for an outcome: a final refusal. */
  void notEndedByAnswered401(String phase, AppCredentials credentials, IntentOutcome outcome) {
    if (outcome instanceof IntentOutcome.Rejected r) {
      notEndedByAnswered401(phase, credentials, r.response().status());
    }
  }
}
