package dev.oncely.spring.boot.webhooks.quickstart;

import dev.oncely.server.inbox.InboxMessage;
import dev.oncely.spring.boot.webhooks.WebhookHandler;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * The inbox's 30-second quick start ({@code docs/webhooks.md}), kept compiling, working and equal
 * to the document by {@code QuickStartWebhooksTest}: a Boot app that fulfils an order once per
 * Stripe event however often Stripe delivers it.
 */
@SpringBootApplication
public class QuickStartWebhooksApp {
  public static void main(String[] args) {
    SpringApplication.run(QuickStartWebhooksApp.class, args);
  }

  @Component
  static class Orders {
    final AtomicInteger fulfilled = new AtomicInteger();

    @WebhookHandler(source = "stripe", type = "payment_intent.succeeded")
    void paid(InboxMessage message, JsonNode event) {
      String intent = event.at("/data/object/id").asString();
      System.out.println("fulfil " + intent);                // the effect: once per event
      fulfilled.incrementAndGet();
    }
  }
}
