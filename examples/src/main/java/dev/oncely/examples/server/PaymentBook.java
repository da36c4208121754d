package dev.oncely.examples.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The payments the server has accepted or created, by id. Creating a payment is the business
 * effect; it is counted in {@link StatsRecorder} at the moment it happens.
 */
final class PaymentBook {
  private final AtomicLong sequence = new AtomicLong();
  private final ConcurrentHashMap<String, byte[]> done = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Boolean> processing = new ConcurrentHashMap<>();
  private final StatsRecorder stats;

  PaymentBook(StatsRecorder stats) {
    this.stats = stats;
  }

  String newId() {
    return String.format("pay_%06d", sequence.incrementAndGet());
  }

  void markProcessing(String id) {
    processing.put(id, Boolean.TRUE);
  }

  /** Creates the payment {@code id} from {@code request} and returns its JSON. */
  byte[] create(String id, ObjectNode request, String key) {
    ObjectNode payment = JsonBodies.MAPPER.createObjectNode();
    payment.put("id", id);
    payment.put("status", "succeeded");
    payment.put("amount", request.get("amount").longValue());
    copyText(request, payment, "currency");
    copyText(request, payment, "customer");
    copyText(request, payment, "order");
    byte[] json = JsonBodies.bytes(payment);
    done.put(id, json);
    processing.remove(id);
    JsonNode order = request.get("order");
    stats.effect(key, order != null && order.isTextual() ? order.textValue() : null);
    return json;
  }

  /** The payment's JSON if created, else null. */
  byte[] created(String id) {
    return done.get(id);
  }

  boolean isProcessing(String id) {
    return processing.containsKey(id);
  }

  private static void copyText(ObjectNode from, ObjectNode to, String field) {
    JsonNode v = from.get(field);
    if (v != null && v.isTextual()) {
      to.put(field, v.textValue());
    }
  }
}
