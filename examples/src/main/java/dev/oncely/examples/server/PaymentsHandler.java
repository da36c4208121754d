package dev.oncely.examples.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code POST /payments} and {@code GET /payments/{id}}: the server side of the idempotency
 * contract, with the configured faults around it.
 *
 * <p>Order for a keyed {@code POST}: read body and key, fingerprint the normalized JSON, reserve
 * (scope, operation, key) in the {@link Ledger}, and only the owner of a fresh reservation creates
 * the payment and stores the reply. Drop and stall faults act after that commit.
 */
final class PaymentsHandler implements HttpHandler {
  static final String OPERATION = "create-payment";
  static final String SCOPE_HEADER = "X-Tenant";
  static final String DEFAULT_SCOPE = "default";
  static final String REPLAYED_HEADER = "Idempotent-Replayed";
  static final int MAX_BODY_BYTES = 64 * 1024;
  private static final String COLLECTION = "/payments";

  private final AtomicReference<FaultInjector> faults;
  private final boolean acceptKeyless;
  private final double slowShare;
  private final Random slowChoice;
  private final Ledger ledger = new Ledger();
  private final PaymentBook book;
  private final StatsRecorder stats;
  private final ErrorReplies errors;
  private final SlowOperations slowOps;
  private final StallRoom stalls;

  PaymentsHandler(FaultPlan plan, boolean acceptKeyless, double slowShare, StatsRecorder stats,
      ErrorReplies errors, SlowOperations slowOps, StallRoom stalls) {
    this.faults = new AtomicReference<>(new FaultInjector(plan));
    this.acceptKeyless = acceptKeyless;
    this.slowShare = slowShare;
    this.slowChoice = new Random(~plan.seed());
    this.book = new PaymentBook(stats);
    this.stats = stats;
    this.errors = errors;
    this.slowOps = slowOps;
    this.stalls = stalls;
  }

  /** Applies {@code plan} to the requests that arrive from now on, with a fresh seeded draw. */
  void changeFaults(FaultPlan plan) {
    faults.set(new FaultInjector(plan));
  }

  FaultPlan faults() {
    return faults.get().plan();
  }

  @Override
  public void handle(HttpExchange ex) {
    try {
      String path = ex.getRequestURI().getPath();
      boolean collection = path.equals(COLLECTION);
      String id = collection ? null : paymentId(path);
      if (!collection && id == null) {
        Exchanges.send(ex, errors.notFound("no resource at this path"));
        return;
      }
      stats.request();
      FaultInjector injector = faults.get();
      FaultInjector.Decision decision = injector.next();
      Duration latency = injector.plan().latency();
      if (decision == FaultInjector.Decision.REFUSE) {
        stats.fault(FaultKind.REFUSE);
        ex.close();
        return;
      }
      if (!latency.isZero()) {
        stats.fault(FaultKind.LATENCY);
        Thread.sleep(latency.toMillis());
      }
      if (decision == FaultInjector.Decision.UNAVAILABLE) {
        stats.fault(FaultKind.BURST_503);
        Exchanges.send(ex, errors.unavailable());
        return;
      }
      String method = ex.getRequestMethod();
      if (collection && method.equals("POST")) {
        answerAfterCommit(ex, create(ex), decision, injector.plan().stallFor());
      } else if (!collection && method.equals("GET")) {
        stats.poll();
        Exchanges.send(ex, status(id));
      } else {
        Exchanges.send(ex, errors.methodNotAllowed(collection ? "POST" : "GET"));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ex.close();
    } catch (IOException e) {
      ex.close();
    } catch (RuntimeException e) {
      internalError(ex);
      throw e;
    }
  }

  private void internalError(HttpExchange ex) {
    if (ex.getResponseCode() != -1) {
      ex.close();
      return;
    }
    try {
      Exchanges.send(ex, errors.internal());
    } catch (IOException | RuntimeException suppressed) {
      ex.close();
    }
  }

  private static String paymentId(String path) {
    String prefix = COLLECTION + "/";
    if (!path.startsWith(prefix)) {
      return null;
    }
    String id = path.substring(prefix.length());
    return id.isEmpty() || id.contains("/") ? null : id;
  }

  private Reply create(HttpExchange ex) throws IOException {
    byte[] body;
    try (InputStream in = ex.getRequestBody()) {
      body = in.readNBytes(MAX_BODY_BYTES + 1);
    }
    if (body.length > MAX_BODY_BYTES) {
      return errors.tooLarge(MAX_BODY_BYTES);
    }
    String key;
    try {
      key = KeyHeader.read(ex.getRequestHeaders().get(KeyHeader.NAME));
    } catch (KeyHeader.MalformedKeyException e) {
      return errors.malformedKey(e.getMessage());
    }
    if (key == null && !acceptKeyless) {
      return errors.missingKey();
    }
    ObjectNode request;
    try {
      request = JsonBodies.parseObject(body);
    } catch (JsonBodies.InvalidBodyException e) {
      return errors.invalidBody(e.getMessage());
    }
    if (key == null) {
      return execute(request, null, null);
    }
    Ledger.Id id = new Ledger.Id(scope(ex), OPERATION, key);
    String fingerprint = JsonBodies.fingerprint(request);
    Ledger.Reservation reservation = ledger.reserve(id, fingerprint);
    if (!reservation.owner()) {
      return repeat(reservation.entry(), fingerprint);
    }
    try {
      return execute(request, key, reservation.entry());
    } catch (RuntimeException e) {
      ledger.release(id);
      throw e;
    }
  }

  private static String scope(HttpExchange ex) {
    String scope = ex.getRequestHeaders().getFirst(SCOPE_HEADER);
    return scope == null || scope.isBlank() ? DEFAULT_SCOPE : scope.trim();
  }

  private Reply repeat(Ledger.Entry entry, String fingerprint) {
    if (!entry.fingerprint().equals(fingerprint)) {
      stats.mismatch();
      return errors.mismatch();
    }
    Reply stored = entry.stored();
    if (stored == null) {
      stats.inProgress();
      return errors.inProgress(entry.location());
    }
    stats.replay();
    return stored.withHeader(REPLAYED_HEADER, "true");
  }

  /** Runs a new request: refuse it, accept it as slow, or create the payment now. */
  private Reply execute(ObjectNode request, String key, Ledger.Entry entry) {
    String problem = businessProblem(request);
    if (problem != null) {
      return complete(entry, errors.rejected(problem));
    }
    String paymentId = book.newId();
    String location = COLLECTION + "/" + paymentId;
    if (slowShare > 0 && slowChoice.nextDouble() < slowShare) {
      book.markProcessing(paymentId);
      if (entry != null) {
        entry.accepted(location);
      }
      slowOps.schedule(paymentId,
          () -> complete(entry, created(paymentId, location, request, key)));
      stats.accepted();
      return processing(paymentId, location);
    }
    return complete(entry, created(paymentId, location, request, key));
  }

  private static String businessProblem(ObjectNode request) {
    JsonNode amount = request.get("amount");
    if (amount == null || !amount.canConvertToExactIntegral() || !amount.canConvertToLong()
        || amount.longValue() <= 0) {
      return "amount must be a positive integer";
    }
    return null;
  }

  private Reply created(String paymentId, String location, ObjectNode request, String key) {
    return Reply.of(201, Reply.JSON, book.create(paymentId, request, key))
        .withHeader("Location", location);
  }

  private static Reply complete(Ledger.Entry entry, Reply reply) {
    if (entry != null) {
      entry.complete(reply);
    }
    return reply;
  }

  private Reply processing(String paymentId, String location) {
    ObjectNode body = JsonBodies.MAPPER.createObjectNode();
    body.put("id", paymentId);
    body.put("status", "processing");
    return Reply.of(202, Reply.JSON, JsonBodies.bytes(body))
        .withHeader("Location", location)
        .withHeader("Retry-After", errors.retryAfter());
  }

  private Reply status(String paymentId) {
    if (book.isProcessing(paymentId)) {
      return processing(paymentId, COLLECTION + "/" + paymentId);
    }
    byte[] payment = book.created(paymentId);
    return payment != null
        ? Reply.of(200, Reply.JSON, payment)
        : errors.notFound("no payment " + paymentId);
  }

  private void answerAfterCommit(HttpExchange ex, Reply reply, FaultInjector.Decision decision,
      Duration stallFor) throws IOException {
    if (decision == FaultInjector.Decision.DROP_AFTER_COMMIT) {
      stats.fault(FaultKind.DROP);
      ex.close();
    } else if (decision == FaultInjector.Decision.STALL_AFTER_COMMIT) {
      stats.fault(FaultKind.STALL);
      stalls.hold(ex, stallFor);
    } else {
      Exchanges.send(ex, reply);
    }
  }
}
