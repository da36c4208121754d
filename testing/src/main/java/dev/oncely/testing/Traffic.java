package dev.oncely.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What reached an {@link IdempotentServer} and what it answered: it numbers each arriving request,
 * keeps the {@link ServedAnswer}s in request order, and lets a test wait until the server is
 * quiet. Thread-safe.
 */
final class Traffic {
  private final AtomicInteger requestNumbers = new AtomicInteger();
  private final List<ServedAnswer> answers = new ArrayList<>();
  /** Guards {@link #lastActivity}; notified at each arrival and answer. */
  private final Object activity = new Object();
  private long lastActivity = System.nanoTime();

  /** Notes an arriving request and returns its number, from 1. */
  int arrived() {
    int number = requestNumbers.incrementAndGet();
    active();
    return number;
  }

  /** Notes what the server decided to answer a request. */
  void served(ServedAnswer answer) {
    synchronized (answers) {
      answers.add(answer);
    }
    active();
  }

  /** The number of requests received so far. */
  int requestCount() {
    return requestNumbers.get();
  }

  /** The answers decided so far, in request order. */
  List<ServedAnswer> answers() {
    synchronized (answers) {
      return List.copyOf(answers);
    }
  }

  /** See {@link IdempotentServer#awaitQuiet(Duration, Duration)}. */
  boolean awaitQuiet(Duration quietFor, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (activity) {
      while (true) {
        long now = System.nanoTime();
        boolean answered = answers().size() >= requestCount();
        long quietLeft = lastActivity + quietFor.toNanos() - now;
        if (answered && quietLeft <= 0) {
          return true;
        }
        long left = deadline - now;
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(activity, answered ? Math.min(quietLeft, left) : left);
      }
    }
  }

  private void active() {
    synchronized (activity) {
      lastActivity = System.nanoTime();
      activity.notifyAll();
    }
  }
}
