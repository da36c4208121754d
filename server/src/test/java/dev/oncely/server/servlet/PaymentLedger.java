package dev.oncely.server.servlet;

import dev.oncely.client.IntentId;
import dev.oncely.server.HandlerContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The business effects a test servlet committed, per idempotency key: what "exactly one effect"
 * is counted against. In memory; thread-safe.
 */
final class PaymentLedger {
  private final List<Payment> payments = new ArrayList<>();
  private final AtomicInteger unprotected = new AtomicInteger();

  /**
   * One committed effect.
   *
   * @param id the payment's id ({@code pay_N}, in commit order)
   * @param key the idempotency key it ran under ({@code unprotected-N} without one)
   * @param receipt the receipt's identity, or null for an unprotected request
   * @param request the body bytes the servlet read
   */
  record Payment(String id, String key, @Nullable IntentId receipt, byte[] request) {}

  /** Commits one payment for the request {@code context} runs (null: unprotected). */
  synchronized Payment record(@Nullable HandlerContext context, byte[] request) {
    IntentId receipt = context != null && context.isProtected() ? context.receipt().id() : null;
    String key = receipt != null ? receipt.key() : "unprotected-" + unprotected.incrementAndGet();
    Payment p = new Payment("pay_" + (payments.size() + 1), key, receipt, request.clone());
    payments.add(p);
    return p;
  }

  /** Every payment committed. */
  synchronized int effects() {
    return payments.size();
  }

  /** The payments committed under {@code key}. */
  synchronized int effectsOf(String key) {
    return (int) payments.stream().filter(p -> p.key().equals(key)).count();
  }

  /** The keys that have more than one payment, with their counts: empty when exactly-once held. */
  synchronized Map<String, Integer> duplicates() {
    Map<String, Integer> counts = new TreeMap<>();
    payments.forEach(p -> counts.merge(p.key(), 1, Integer::sum));
    counts.values().removeIf(n -> n < 2);
    return counts;
  }

  /** The only payment committed. */
  synchronized Payment single() {
    if (payments.size() != 1) {
      throw new AssertionError(payments.size() + " payments, expected 1");
    }
    return payments.get(0);
  }

  /** The only payment under {@code key}. */
  synchronized Payment only(String key) {
    List<Payment> found = payments.stream().filter(p -> p.key().equals(key)).toList();
    if (found.size() != 1) {
      throw new AssertionError(found.size() + " payments under one key, expected 1");
    }
    return found.get(0);
  }
}
