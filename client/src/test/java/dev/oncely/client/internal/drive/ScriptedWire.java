package dev.oncely.client.internal.drive;

import dev.oncely.client.IntentId;
import dev.oncely.client.IntentRecord;
import dev.oncely.client.IntentState;
import dev.oncely.client.IntentStore;
import dev.oncely.client.StoredResponse;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A {@link Wire} that answers from a script, one reply per attempt, and remembers what each attempt
 * carried (exchange, key header and value, timeout). No socket: a drive against it runs in
 * microseconds. An attempt past the end of the script fails the test with an {@link AssertionError}
 * (which the drive loop does not catch). A reply may also act when its attempt is made (another
 * writer changes the record, the caller stops), or hold the attempt until the test releases it.
 * Thread-safe.
 */
final class ScriptedWire implements Wire {
  /** One attempt as the wire saw it. */
  record Attempt(IntentId id, Exchange exchange, String keyHeader, String keyValue,
      long timeoutMillis) {
    /** "POST /payments" or "GET /status/p-1". */
    String line(String method) {
      return (exchange.isPoll() ? "GET" : method) + " " + exchange.url().encodedPath();
    }
  }

  /** What one attempt gets back. */
  @FunctionalInterface
  interface Reply {
    Answer answer(ScriptedWire wire, Exchange exchange);

    /** This reply, after {@code action} ran while the attempt was on the wire. */
    default Reply whileSent(Consumer<ScriptedWire> action) {
      return (wire, exchange) -> {
        action.accept(wire);
        return answer(wire, exchange);
      };
    }
  }

  private final Deque<Reply> script;
  private final List<Attempt> attempts = new ArrayList<>();
  private final List<Answer> answers = new ArrayList<>();
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch released;
  private volatile String stop;
  private volatile IntentStore store;
  private volatile IntentId lastId;

  private ScriptedWire(List<Reply> replies, boolean held) {
    this.script = new ArrayDeque<>(replies);
    this.released = new CountDownLatch(held ? 1 : 0);
  }

  /** A wire answering {@code replies} in order. */
  static ScriptedWire answering(Reply... replies) {
    return new ScriptedWire(Arrays.asList(replies), false);
  }

  /** A wire answering {@code replies} in order once {@link #release()} was called. */
  static ScriptedWire heldUntilReleased(Reply... replies) {
    return new ScriptedWire(Arrays.asList(replies), true);
  }

  // The replies a server or network gives.

  /** An answer with {@code status} and headers given as name, value pairs. */
  static Reply status(int status, String... headerPairs) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (int i = 0; i < headerPairs.length; i += 2) {
      headers.put(headerPairs[i], List.of(headerPairs[i + 1]));
    }
    StoredResponse response = StoredResponse.of(status, headers, new byte[0]);
    // Written once, as OkHttp writes a request that got an answer.
    return (wire, exchange) -> new Answer(response, exchange.url(), null, 0, false, false, false,
        1, Answer.Renewal.NOT_ASKED);
  }

  /**
   * The body was written and the read timed out: the server may have processed it ("maybe
   * delivered").
   */
  static Reply timeoutAfterWrite() {
    return (wire, exchange) -> Answer.failed(exchange.url(),
        new SocketTimeoutException("timeout")).afterWrites(1);
  }

  /** The connection was refused: nothing was written ("provably unsent"). */
  static Reply refusedBeforeWrite() {
    return (wire, exchange) -> Answer.failed(exchange.url(),
        new ConnectException("Failed to connect"));
  }

  /** The app's header provider failed before the request reached the HTTP client. */
  static Reply failedBeforeHandOff() {
    return (wire, exchange) -> Answer.unsent(exchange.url(), new IOException("header provider"));
  }

  /** Lets replies change records in {@code store}, as another writer would. */
  ScriptedWire writingTo(IntentStore store) {
    this.store = store;
    return this;
  }

  /**
   * Another writer (an operator's resolve, another process) moves the record of the attempt on
   * the wire on by one revision, so the drive's next compare-and-set is refused.
   */
  void anotherWriterChangesTheRecord() {
    IntentRecord current = store.get(lastId).orElseThrow();
    IntentRecord changed = current.successor().state(IntentState.PENDING)
        .reason("DRIVEN_ELSEWHERE: changed by another writer").build();
    if (!store.compareAndSet(current, changed)) {
      throw new AssertionError("the other writer's write was refused");
    }
  }

  /**
   * The wire breaks its "never throws" contract, after the request may have been written (a
   * wire's own bug).
   */
  static Reply throwsAfterWrite() {
    return (wire, exchange) -> {
      throw new IllegalStateException("the wire threw");
    };
  }

  @Override
  public String stopped() {
    return stop;
  }

  /** From now on {@link #stopped()} says {@code why}, as a canceled call or a closed owner does. */
  void stop(String why) {
    this.stop = why;
  }

  @Override
  public Sent send(IntentRecord record, Exchange exchange, long timeoutMillis) {
    Reply reply;
    synchronized (this) {
      attempts.add(new Attempt(record.id(), exchange, record.keyHeader(), record.keyValue(),
          timeoutMillis));
      lastId = record.id();
      reply = script.poll();
      if (reply == null) {
        throw new AssertionError("attempt " + attempts.size() + " (" + exchange
            + ") is not in the script");
      }
    }
    entered.countDown();
    try {
      if (!released.await(5, TimeUnit.SECONDS)) {
        throw new AssertionError("the held attempt was never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while held", e);
    }
    Answer answer = reply.answer(this, exchange);
    synchronized (this) {
      answers.add(answer);
    }
    return new Sent(answer, null);
  }

  /** Blocks until the first attempt is on the wire (bounded, so a broken test fails). */
  void awaitFirstAttempt() throws InterruptedException {
    if (!entered.await(5, TimeUnit.SECONDS)) {
      throw new AssertionError("no attempt reached the wire");
    }
  }

  /** Lets held attempts answer. */
  void release() {
    released.countDown();
  }

  /** The attempts made, in order. */
  synchronized List<Attempt> attempts() {
    return List.copyOf(attempts);
  }

  /** The answers given, in order. */
  synchronized List<Answer> answers() {
    return List.copyOf(answers);
  }

  /** The replies never asked for. */
  synchronized int unused() {
    return script.size();
  }
}
