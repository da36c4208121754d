package dev.oncely.server;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/** Requests, handlers and gates for the core's tests. */
final class EndpointTestKit {
  static final String OPERATION = "payments.create";
  static final String JSON = "application/json";

  private EndpointTestKit() {}

  /** A JSON POST by {@code principal} with {@code keyHeader} as the raw key header, if any. */
  static InboundRequest post(String principal, @Nullable String keyHeader, String json) {
    return post(principal, keyHeader, JSON, json.getBytes(StandardCharsets.UTF_8));
  }

  static InboundRequest post(String principal, @Nullable String keyHeader, String contentType,
      byte[] body) {
    InboundRequest.Builder b = InboundRequest.builder("POST", "/payments").principal(principal)
        .header("Content-Type", contentType).body(body);
    if (keyHeader != null) {
      b.header("Idempotency-Key", keyHeader);
    }
    return b.build();
  }

  /** The IETF form of {@code key}: a Structured Field string. */
  static String quoted(String key) {
    return '"' + key + '"';
  }

  static String text(ServerAnswer a) {
    return new String(a.body(), StandardCharsets.UTF_8);
  }

  static ServerAnswer created(String json) {
    return ServerAnswer.of(201, Map.of("Content-Type", List.of(JSON)),
        json.getBytes(StandardCharsets.UTF_8));
  }

  /** What one run of a {@link ScriptedHandler} does. */
  @FunctionalInterface
  interface Run {
    ServerAnswer handle(HandlerContext context, int run) throws Exception;
  }

  /**
   * A handler that counts its runs and does what its script says for each (the run number starts
   * at 1); it remembers every context it was given.
   */
  static final class ScriptedHandler implements EndpointHandler {
    private final AtomicInteger runs = new AtomicInteger();
    private final Run script;
    final List<HandlerContext> contexts = new CopyOnWriteArrayList<>();

    ScriptedHandler(Run script) {
      this.script = script;
    }

    /** A handler that answers {@code 201 {"run":n}} on run n. */
    static ScriptedHandler creating() {
      return new ScriptedHandler((context, run) -> created("{\"run\":" + run + "}"));
    }

    @Override
    public ServerAnswer handle(HandlerContext context) throws Exception {
      contexts.add(context);
      return script.handle(context, runs.incrementAndGet());
    }

    int runs() {
      return runs.get();
    }
  }

  /** Holds a handler inside its run until the test lets it go. */
  static final class Gate {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    /** Called by the handler: says it entered, then waits to be let go. */
    void pass() throws InterruptedException {
      entered.countDown();
      if (!release.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never released the handler");
      }
    }

    void awaitEntered() throws InterruptedException {
      if (!entered.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("the handler did not start");
      }
    }

    void open() {
      release.countDown();
    }
  }

  /** A handler failure the tests throw on purpose. */
  static final class HandlerFailure extends Exception {
    private static final long serialVersionUID = 1L;

    HandlerFailure(String message) {
      super(message);
    }
  }
}
