package dev.oncely.spring.boot.server.quickstart;

import dev.oncely.spring.boot.server.IdempotentEndpoint;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The server half's 30-second quick start ({@code docs/server.md}), kept
 * compiling and working by {@code QuickStartServerTest}: a Boot app whose payment endpoint charges
 * once per idempotency key.
 */
@SpringBootApplication
public class QuickStartServerApp {
  public static void main(String[] args) {
    SpringApplication.run(QuickStartServerApp.class, args);
  }

  @RestController
  static class Payments {
    final AtomicInteger charges = new AtomicInteger();

    @PostMapping("/payments")
    @IdempotentEndpoint(operation = "payments.create")
    ResponseEntity<Map<String, Object>> create(@RequestBody Map<String, Object> payment) {
      String id = "pay_" + charges.incrementAndGet();          // the effect: once per key
      return ResponseEntity.status(201).body(Map.of("id", id, "amount", payment.get("amount")));
    }
  }
}
