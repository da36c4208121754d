package dev.oncely.testing;

import java.util.Set;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/**
 * Takes each request an {@link IdempotentServer} receives through its steps: number and log it,
 * draw its fault, let a fault "before handling" answer, else route it (status URL: {@link
 * Operations}; a submit with a missing credential: {@code 401}; with a body over the limit: {@code
 * 413}; else {@link Submissions}; another {@code GET} or {@code HEAD}: an empty listing; other
 * methods: {@code 405}), note the decided answer, and hand it to the {@link FaultInjector} for
 * the faults "after commit". Thread-safe.
 */
final class RequestRouter {
  private static final Set<String> SUBMIT_METHODS = Set.of("POST", "PUT", "PATCH", "DELETE");

  private final ServerConfig config;
  private final Traffic traffic;
  private final RequestLog log;
  private final KeyStore keys;
  private final FaultInjector faults;
  private final Submissions submissions;
  private final Operations operations;

  RequestRouter(ServerConfig config, Traffic traffic, RequestLog log, KeyStore keys,
      FaultInjector faults, Submissions submissions, Operations operations) {
    this.config = config;
    this.traffic = traffic;
    this.log = log;
    this.keys = keys;
    this.faults = faults;
    this.submissions = submissions;
    this.operations = operations;
  }

  MockResponse dispatch(RecordedRequest recorded) throws InterruptedException {
    int number = traffic.arrived();
    ReceivedRequest request = ReceivedRequest.of(number, recorded, config.clock.instant());
    log.add(request);
    String rawKey = request.header(config.keyHeader);
    boolean poll = operations.isStatusUrl(request);
    // A poll is no request of its key even when it carries the key header: its number is 0.
    int ofKey = rawKey != null && !poll ? keys.countRequest(request, rawKey) : 0;
    FaultScript script = faults.script();
    Fault fault = faults.draw(script, request, ofKey);
    MockResponse.Builder early = faults.beforeHandling(request, fault, ofKey, poll);
    if (early != null) {
      traffic.served(new ServedAnswer(number, null, early.getCode(), ServedAnswer.Kind.FAULT));
      return early.build();
    }
    Answer answer;
    String intent = null;
    String method = request.method();
    if (poll) {
      answer = method.equals("GET") ? operations.poll(request, fault)
          : Answer.json(405, "{\"error\":\"status URLs answer GET only\"}").with("Allow", "GET");
    } else if (SUBMIT_METHODS.contains(method) && !credentialAccepted(request)) {
      answer = Answer.json(401, "{\"error\":\"the credential is missing or expired\"}")
          .with("WWW-Authenticate", "Bearer error=\"invalid_token\"")
          .as(ServedAnswer.Kind.UNAUTHORIZED);
    } else if (SUBMIT_METHODS.contains(method) && request.body().length > config.maxBodyBytes) {
      answer = Answer.json(413, "{\"error\":\"the body is " + request.body().length
          + " bytes; the limit is " + config.maxBodyBytes + "\"}");
    } else if (SUBMIT_METHODS.contains(method)) {
      intent = submissions.intentOf(request);
      answer = submissions.submit(request, intent, fault);
    } else if (method.equals("GET") || method.equals("HEAD")) {
      answer = Answer.json(200, "{\"data\":[]}");
    } else {
      answer = Answer.json(405, "{\"error\":\"method not allowed\"}")
          .with("Allow", "GET, POST, PUT, PATCH, DELETE");
    }
    traffic.served(new ServedAnswer(number, intent, answer.status(), answer.kind()));
    return faults.afterHandling(answer, fault, script, request);
  }

  private boolean credentialAccepted(ReceivedRequest r) {
    return config.credentialHeader == null
        || config.credentialAccepted.test(r.header(config.credentialHeader));
  }
}
