package dev.oncely.consumer;

import dev.oncely.testing.Fault;
import dev.oncely.testing.FaultScript;
import dev.oncely.testing.IdempotentServer;
import dev.oncely.testing.MismatchAnswer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import mockwebserver3.MockWebServer;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts the Boot context with the starter, makes one RestClient call on the Oncely request
 * factory against a server (Stripe-like) that charges and then drops its answer, and exits. The
 * server must count exactly one charge.
 */
@SpringBootApplication
public class CheckoutApplication {
  /** Pays order o-7 once; a non-zero exit (an exception) fails the consumer build. */
  public static void main(String[] args) throws Exception {
    IdempotentServer provider = IdempotentServer.builder()
        .mismatch(MismatchAnswer.stripe())
        .intentOf(IdempotentServer.jsonField("order"))
        .faults(FaultScript.builder().onRequest(1, Fault.dropAfterCommit()).build())
        .build();
    Path dir = Files.createTempDirectory("oncely-boot-consumer");
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(provider);
      server.start();
      SpringApplication app = new SpringApplication(CheckoutApplication.class);
      app.setWebApplicationType(WebApplicationType.NONE);
      try (ConfigurableApplicationContext context = app.run(
          "--payments.base-url=" + server.url("/"),
          "--oncely.store.path=" + dir.resolve("intents.db"))) {
        String answer = context.getBean(Payments.class)
            .pay("o-7", "{\"order\":\"o-7\",\"amount\":1000}");
        if (!answer.contains("\"status\":\"succeeded\"")) {
          throw new IllegalStateException("expected a succeeded payment, got " + answer);
        }
      }
    }
    provider.ledger().assertExactlyOneEffectEach(List.of("o-7"));
    if (provider.ledger().size() != 1) {
      throw new IllegalStateException("expected one effect, got " + provider.ledger().all());
    }
    System.out.println("Spring Boot with oncely-spring-boot-starter: one intent, "
        + provider.requestCount() + " requests, " + provider.ledger().size() + " effect");
  }
}
